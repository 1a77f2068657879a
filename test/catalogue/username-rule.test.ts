import { describe, expect, it } from 'vitest';
import { MAX_USERNAME_LENGTH, usernameProblem } from '../../src/catalogue/username-rule.js';

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
