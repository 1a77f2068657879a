import { describe, expect, it } from 'vitest';
import { CatalogueError } from '../errors.js';
import { LinearRegex, reviveLinearRegex } from './linear-regex.js';

describe('LinearRegex', () => {
  it('tests anywhere in the text, as RegExp.test does', () => {
    const re = new LinearRegex('profile of \\w+');
    expect(re.test('<h1>profile of alice</h1>')).toBe(true);
    expect(re.test('profile of ')).toBe(false);
  });

  it('reads the JavaScript flags i, m, s and u', () => {
    expect(new LinearRegex('PROFILE').test('profile')).toBe(false);
    expect(new LinearRegex('PROFILE', 'i').test('profile')).toBe(true);
    expect(new LinearRegex('^b$').test('a\nb\nc')).toBe(false);
    expect(new LinearRegex('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(new LinearRegex('a.b').test('a\nb')).toBe(false);
    expect(new LinearRegex('a.b', 's').test('a\nb')).toBe(true);
    expect(new LinearRegex('^.$', 'u').test('😀')).toBe(true);
    expect(new LinearRegex('x', 'ims').flags).toBe('ims');
  });

  it('gives the first match: where it starts, its text and its named groups', () => {
    const re = new LinearRegex('"id":(?<value>\\d+)(?<unit>k)?');
    expect(re.exec('é {"id":42} {"id":7}')).toEqual({
      index: 3,
      text: '"id":42',
      groups: { value: '42', unit: undefined },
    });
    expect(re.exec('no id')).toBeUndefined();
    expect(re.hasGroup('value')).toBe(true);
    expect(re.hasGroup('other')).toBe(false);
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a named backreference', '(?<x>a)\\k<x>'],
    ['a lookahead', 'a(?=x)'],
    ['a negative lookahead', '^(?!x)'],
    ['a lookbehind', '(?<=x)a'],
  ])('refuses %s, naming the pattern and why', (_label, pattern) => {
    const attempt = () => new LinearRegex(pattern);
    expect(attempt).toThrow(CatalogueError);
    expect(attempt).toThrow(JSON.stringify(pattern));
    expect(attempt).toThrow(/lookaround and backreferences need a backtracking engine/);
  });

  it('refuses a flag it does not know and a pattern that does not parse', () => {
    expect(() => new LinearRegex('a', 'g')).toThrow(/unknown flag "g"/);
    expect(() => new LinearRegex('([')).toThrow(/regex does not compile .*missing closing/);
  });

  it('runs a pattern that makes a backtracking engine take exponential time, to the end', () => {
    const text = `${'a'.repeat(100_000)}b`;
    expect(new LinearRegex('(a+)+$').test(text)).toBe(false);
    expect(new LinearRegex('^(a|a)*c').exec(text)).toBeUndefined();
  });

  it('is frozen, and compiled again from what a structured clone keeps', () => {
    const re = new LinearRegex('Profile of (?<value>\\w+)', 'i');
    expect(Object.isFrozen(re)).toBe(true);
    const clone = structuredClone(re);
    expect(clone).toEqual({ source: re.source, flags: 'i' });
    const revived = reviveLinearRegex(clone);
    expect(revived.exec('profile of bob')?.groups.value).toBe('bob');
    expect(reviveLinearRegex(re)).toBe(re);
  });
});
