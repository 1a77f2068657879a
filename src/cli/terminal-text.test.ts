import { describe, expect, it } from 'vitest';
import { terminalCsv, terminalJson, terminalLine, terminalText } from './terminal-text.js';

const HOSTILE = 'a\x1b]0;pwned\x07b\x9b2Jc\u202eevil\u2066x\u2069\u200e\x7fd\re';

describe('site text on a terminal', () => {
  it('loses C0 (but tab and line feed), DEL, C1 and bidi controls', () => {
    expect(terminalText(HOSTILE)).toBe('a]0;pwnedb2Jcevilxde');
    expect(terminalText('line one\n\tline two')).toBe('line one\n\tline two');
    expect(terminalText('café 日本 \u{1F600}')).toBe('café 日本 \u{1F600}');
  });

  it('keeps one line one line', () => {
    expect(terminalLine('a\nb\tc\x1b[31m')).toBe('a b c[31m');
  });

  it('keeps the CRLF that ends a CSV record and drops a lone CR', () => {
    expect(terminalCsv('a,b\r\n"x\ry\x1b",z\r\n')).toBe('a,b\r\n"xy",z\r\n');
  });

  it('writes JSON controls as escapes, so the data is the same', () => {
    const json = terminalJson(JSON.stringify({ s: HOSTILE }, null, 2));
    expect(json).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e]/);
    expect(JSON.parse(json)).toEqual({ s: HOSTILE });
  });
});
