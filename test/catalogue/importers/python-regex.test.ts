import { describe, expect, it } from 'vitest';
import { pythonRegexToJs } from '../../../src/catalogue/importers/python-regex.js';

describe('pythonRegexToJs', () => {
  it.each([
    ['unchanged when already portable', '^[a-zA-Z0-9_]{3,25}$', '^[a-zA-Z0-9_]{3,25}$'],
    ['{,n} means {0,n}', '^[a-z]{,34}$', '^[a-z]{0,34}$'],
    ['\\w is Unicode-aware, as in Python 3', '^\\w{3,20}$', '^[_\\p{L}\\p{N}]{3,20}$'],
    ['\\w inside a class', '^[\\w@-]+?$', '^[_\\p{L}\\p{N}@-]+?$'],
    ['\\d is any decimal digit', '^\\d+$', '^\\p{Nd}+$'],
    ['named groups', '(?P<n>a)(?P=n)', '(?<n>a)\\k<n>'],
    ['\\A and \\Z anchors', '\\Aab\\Z', '^ab$'],
    ['comments are dropped', 'a(?#note)b', 'ab'],
    ['identity escapes the u flag refuses become literals', '^[a-z\\_]\\@x$', '^[a-z_]@x$'],
    ['lone braces and brackets are literals', 'a{b}c]', 'a\\{b\\}c\\]'],
    ['a "]" first in a class is a literal', '[]a]', '[\\]a]'],
    ['"-" after a class escape is a literal', '[\\w-.]', '[_\\p{L}\\p{N}\\-.]'],
    ['\\U escapes', '\\U0001F600', '\\u{1F600}'],
    ['lookbehind is kept', '^(?!-)[a-z-]{2,}(?<!-)$', '^(?!-)[a-z-]{2,}(?<!-)$'],
  ])('%s', (_label, python, js) => {
    expect(pythonRegexToJs(python)).toEqual({ ok: true, pattern: js });
  });

  it('keeps the meaning of \\w for names in other scripts', () => {
    const result = pythonRegexToJs('^\\w+$');
    if (!result.ok) throw new Error(result.reason);
    const re = new RegExp(result.pattern, 'u');
    expect(re.test('иван_2')).toBe(true);
    expect(re.test('a.b')).toBe(false);
  });

  it.each([
    ['inline flags', '(?i)abc', 'inline flags'],
    ['\\b word boundaries', '\\bab', 'ASCII-only'],
    ['atomic groups', '(?>a+)b', 'atomic group'],
    ['possessive quantifiers', 'a++', 'does not compile in JavaScript'],
    ['named character escapes', '\\N{DASH}', 'named character'],
    ['an unterminated class', '[abc', 'unterminated'],
  ])('refuses %s with a reason', (_label, python, reason) => {
    const result = pythonRegexToJs(python);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});
