import { describe, expect, it } from 'vitest';
import { BodyText } from './body-text.js';

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** What a decoder of the whole body gives. */
const whole = (chunks: readonly Buffer[]): string => new TextDecoder().decode(Buffer.concat(chunks));

describe('BodyText', () => {
  it('gives the text of the chunks pushed so far, ASCII as it is', () => {
    const body = new BodyText();
    expect(body.text()).toBe('');
    body.push(bytes('<html>'));
    body.push(bytes('<p>alice</p>'));
    expect(body.text()).toBe('<html><p>alice</p>');
    body.push(bytes('</html>'));
    expect(body.text(true)).toBe('<html><p>alice</p></html>');
  });

  it('leaves out a character whose bytes have not all arrived, until they have', () => {
    const body = new BodyText();
    // 'é' is C3 A9: its first byte comes in one chunk, asked before the second arrives.
    body.push(bytes('caf', [0xc3]));
    expect(body.text()).toBe('caf');
    body.push(bytes([0xa9], ' — 東京'));
    expect(body.text()).toBe('café — 東京');
    body.push(bytes(' then ASCII again'));
    expect(body.text(true)).toBe('café — 東京 then ASCII again');
  });

  it('ends a character cut off by the end of the body with a replacement character', () => {
    const body = new BodyText();
    body.push(bytes('caf', [0xc3]));
    expect(body.text(true)).toBe('caf\ufffd');
    expect(body.text(true)).toBe('caf\ufffd');
  });

  it('drops a byte order mark at the start of the body only, as a decoder of the whole body does', () => {
    const start = new BodyText();
    start.push(bytes([0xef, 0xbb, 0xbf], '{"ok":true}'));
    expect(start.text(true)).toBe('{"ok":true}');

    // After ASCII text already given out, U+FEFF is a character of the page, kept.
    const later = new BodyText();
    const chunks = [bytes('abc'), bytes([0xef, 0xbb, 0xbf], 'def')];
    later.push(chunks[0]!);
    expect(later.text()).toBe('abc');
    later.push(chunks[1]!);
    expect(later.text(true)).toBe(whole(chunks));
    expect(later.text(true)).toBe('abc\ufeffdef');
  });

  it('replaces invalid bytes as TextDecoder does', () => {
    const body = new BodyText();
    const chunks = [bytes('abc'), bytes([0xff, 0xfe]), bytes('def')];
    for (const chunk of chunks) body.push(chunk);
    expect(body.text(true)).toBe(whole(chunks));
  });

  it('gives what a decoder of the whole body gives, however the body is cut and whenever it is asked', () => {
    const text = `<p>${'a'.repeat(40)} café — 東京 😀 ${'b'.repeat(40)}</p>`;
    const all = Buffer.from(text);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const body = new BodyText();
      let at = 0;
      while (at < all.length) {
        const next = Math.min(all.length, at + 1 + random(12));
        body.push(all.subarray(at, next));
        at = next;
        // A partial text is always the start of the whole one.
        if (random(3) === 0) expect(text.startsWith(body.text())).toBe(true);
      }
      expect(body.text(true)).toBe(text);
    }
  });
});
