import { describe, expect, it } from 'vitest';
import { anyOfTexts, anyOfTextsUnless, noneOfTexts } from '../../../src/catalogue/importers/text-signals.js';
import { LinearRegex } from '../../../src/catalogue/linear-regex.js';
import type { SignalPartSpec, SignalSpec } from '../../../src/catalogue/schema.js';

function matches(signal: SignalSpec | SignalPartSpec, body: string): boolean {
  if ('all' in signal) return signal.all.every((part) => matches(part, body));
  if ('not' in signal) return !matches(signal.not, body);
  if ('text' in signal) return body.includes(signal.text);
  // As the engine runs them: a lookahead would not compile.
  if ('regex' in signal) return new LinearRegex(signal.regex, signal.flags).test(body);
  throw new Error('not a body signal');
}

describe('text signals', () => {
  it('one text stays a text signal; several become one escaped regex', () => {
    expect(anyOfTexts(['a.b'])).toEqual({ text: 'a.b' });
    expect(anyOfTexts(['a.b', '(c)'])).toEqual({ regex: 'a\\.b|\\(c\\)' });
  });

  it('keeps a marker holding {username} to its letters, as the lists read it, never a name to fill in', () => {
    const signal = anyOfTexts(['/u/{username}"']);
    expect(signal).toEqual({ regex: '\\/u\\/\\{username\\}"' });
    expect(matches(signal, 'href="/u/{username}"')).toBe(true);
    expect(matches(signal, 'href="/u/alice"')).toBe(false);
  });

  it.each([
    ['any of', anyOfTexts(['x.y', '[z]']), { 'has [z] here': true, 'x.y': true, xzy: false, '': false }],
    [
      'none of',
      noneOfTexts(['ban', 'cap|tcha']),
      { fine: true, 'you are banned': false, 'cap|tcha': false, captcha: true },
    ],
    [
      'any of, unless',
      anyOfTextsUnless(['not found'], ['banned']),
      { 'user not found': true, 'not found, banned': false, 'banned, not found': false, ok: false },
    ],
  ])('%s', (_label, signal, cases) => {
    for (const [body, expected] of Object.entries(cases)) expect(matches(signal, body), body).toBe(expected);
  });
});
