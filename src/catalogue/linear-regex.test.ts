import { RE2JS } from 're2js';
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
    const attempt = () => LinearRegex.checked(pattern);
    expect(attempt).toThrow(CatalogueError);
    expect(attempt).toThrow(JSON.stringify(pattern));
    expect(attempt).toThrow(/lookaround and backreferences need a backtracking engine/);
  });

  it('refuses a flag it does not know and a pattern that does not parse', () => {
    expect(() => new LinearRegex('a', 'g')).toThrow(/unknown flag "g"/);
    expect(() => LinearRegex.checked('([')).toThrow(/regex does not compile .*missing closing/);
  });

  it('compiles a pattern at its first use: one that does not parse throws then, naming it', () => {
    const broken = new LinearRegex('([');
    expect(broken.source).toBe('([');
    expect(() => broken.test('x')).toThrow(/regex does not compile .*missing closing/);
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

describe('LinearRegex reads a page as the engine alone would', () => {
  // The engine alone over the whole text: what the leads' shortcut must agree with.
  const plain = (source: string, text: string) => {
    const matcher = RE2JS.compile(source).matcher(text);
    if (!matcher.find()) return undefined;
    const groups: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(matcher.getNamedGroups())) groups[name] = value ?? undefined;
    return { index: matcher.start(), text: matcher.group() ?? '', groups };
  };
  const sources = [
    'memberHeader-content|profilePage|mainProfileColumn',
    'udtlb">Пользователь:</div>|name="rankimg"[^>]*src="/\\.s/rnk/|Дата регистрации',
    'ab|a',
    'a|ab',
    'ab+c|b',
    'x(?<n>\\d+)y|xz',
    'to\\b|tod',
    'a😀?b|😀',
    'end$|mid',
  ];
  const alphabet = [
    'a',
    'b',
    'c',
    'x',
    'y',
    'z',
    'to',
    'd',
    '1',
    '2',
    '😀',
    '"',
    '>',
    ' ',
    '\n',
    'src="/.s/rnk/',
    'name="rankimg"',
    'Дата регистрации',
    'profilePage',
    'end',
    'mid',
  ];

  it('finds the same first match and test answer on random texts', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const compiled = sources.map((source) => new LinearRegex(source));
    for (let round = 0; round < 300; round++) {
      const text = Array.from(
        { length: Math.floor(random() * 40) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      for (const [i, source] of sources.entries()) {
        const re = compiled[i]!;
        const expected = plain(source, text);
        expect(re.exec(text), `${source} in ${JSON.stringify(text)}`).toEqual(expected);
        expect(re.test(text)).toBe(expected !== undefined);
      }
    }
  });

  it('reads a page full of a lead that never completes a match, and the match after it', () => {
    const source = 'name="rankimg"[^>]*src="/\\.s/rnk/';
    const page = `${'name="rankimg" '.repeat(1000)}><img name="rankimg" src="/.s/rnk/1.png">`;
    expect(new LinearRegex(source).exec(page)).toEqual(plain(source, page));
    expect(new LinearRegex(source).test(`${'name="rankimg" '.repeat(1000)}>`)).toBe(false);
  });
});
