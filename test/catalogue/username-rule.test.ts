import { describe, expect, it } from 'vitest';
import {
  compileUsernameRule,
  MAX_USERNAME_LENGTH,
  platformUsername,
  ruleViolation,
  unsafeFold,
  usernameProblem,
} from '../../src/catalogue/username-rule.js';

describe('usernameProblem', () => {
  it('accepts ordinary names', () => {
    for (const name of ['alice', 'a.b-c_d', 'Ålice', '名前', 'x'.repeat(MAX_USERNAME_LENGTH)])
      expect(usernameProblem(name)).toBeUndefined();
  });

  it('names what a person cannot see in words, not code points', () => {
    expect(usernameProblem('al ice')).toMatch(/^must not contain spaces \(/);
    expect(usernameProblem('al\tice')).toMatch(/^must not contain tabs \(/);
    expect(usernameProblem('al\nice')).toMatch(/^must not contain line breaks \(/);
    expect(usernameProblem('al\u00a0ice')).toMatch(/^must not contain non-breaking spaces \(U\+00A0\)/);
    expect(usernameProblem('al\u200bice')).toMatch(/^must not contain U\+200B \(/);
  });

  it('quotes a visible character it refuses', () => {
    expect(usernameProblem('a/../b')).toMatch(/^must not contain "\/"/);
    expect(usernameProblem('a@b')).toMatch(/^must not contain "@"/);
  });

  it('refuses empty, too long and dots-only names', () => {
    expect(usernameProblem('')).toBe('must not be empty');
    expect(usernameProblem('x'.repeat(MAX_USERNAME_LENGTH + 1))).toBe(
      `must be at most ${MAX_USERNAME_LENGTH} characters`,
    );
    expect(usernameProblem('..')).toBe('must not consist of dots only');
  });
});

describe('usernameProblem: well-formed text only', () => {
  it('refuses a lone surrogate, high or low, in words a person understands', () => {
    for (const name of ['\ud800abc', 'abc\udfff', 'a\ud83d', '\ude00b']) {
      expect(usernameProblem(name)).toMatch(
        /^is not valid text: it holds half of a character \(U\+D[89A-F][0-9A-F]{2}/,
      );
    }
  });

  it('accepts a character written as a surrogate pair', () => {
    expect(usernameProblem('a\ud83d\ude00b')).toBeUndefined(); // 😀
    expect(usernameProblem('𝒜lice')).toBeUndefined();
  });
});

describe('ruleViolation: judged on the name as given, before lowercasing', () => {
  const lower = compileUsernameRule({ pattern: '^[a-z]+$', lowercase: true });
  const loose = compileUsernameRule({ lowercase: true });

  it('refuses a character that lowercasing would turn into an allowed one (KELVIN SIGN to k)', () => {
    expect(ruleViolation(lower, '\u212Aelvin')).toMatch(/U\+212A/);
    expect(ruleViolation(loose, '\u212Aelvin')).toMatch(/another name/);
    expect(ruleViolation(lower, '\u0130x')).toMatch(/U\+0130/);
    expect(platformUsername({ username: lower }, '\u212Aelvin')).toBe('\u212Aelvin');
  });

  it('lets capitals fold into their own small letters', () => {
    expect(ruleViolation(lower, 'Kelvin')).toBeUndefined();
    expect(platformUsername({ username: lower }, 'Kelvin')).toBe('kelvin');
    const greek = compileUsernameRule({ pattern: '^[α-ω]+$', lowercase: true });
    expect(ruleViolation(greek, 'ΑΣΣ')).toBeUndefined();
    // Without a pattern of its own a platform is taken to allow ASCII only: most sites do, and a
    // non-Latin name read as a hit there would be false.
    expect(ruleViolation(loose, 'ΑΣΣ')).toMatch(/outside ASCII/);
  });

  it('unsafeFold names the first character that does not fold into its own small letter', () => {
    expect(unsafeFold('ab\u212A\u0130')).toBe('\u212A');
    expect(unsafeFold('ABC ÅÉ ß ſ')).toBeUndefined(); // ſ and ß stay as they are
    expect(unsafeFold('\u1E9E')).toBe('\u1E9E'); // CAPITAL SHARP S lowers to ß, which uppers to SS
  });

  it('checks a platform without lowercasing on the name as it is', () => {
    const plain = compileUsernameRule({ pattern: '^[a-z]+$' });
    expect(ruleViolation(plain, 'Kelvin')).toMatch(/does not match/);
    expect(ruleViolation(plain, '\u212Aelvin')).toMatch(/does not match/);
  });
});
