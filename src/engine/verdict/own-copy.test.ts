import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { pageTitle } from '../controls/control.js';
import { ownCopy } from './own-copy.js';
import { cleanText } from './profile-extract.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * A large answer body of its own (not shared with any other), with a title and a marker
 * inside, and no white space: the pieces cut from it are not rewritten on the way out.
 */
function largeBody(n: number): string {
  const filler = `${n}-`.repeat(500_000);
  return `<html><title>ProfileOfAlice${n}</title>${filler}<p>ProfileOfAlice</p>${filler}</html>`;
}

/** Heap bytes still used once the bodies are gone and what was cut from them is kept. */
function keptBytes(cut: (body: string) => unknown): number {
  gc();
  const before = getHeapStatistics().used_heap_size;
  const kept: unknown[] = [];
  for (let n = 0; n < 8; n++) kept.push(cut(largeBody(n)));
  gc();
  const after = getHeapStatistics().used_heap_size;
  expect(kept.every((piece) => typeof piece === 'string' && piece.length > 0)).toBe(true);
  return after - before;
}

// Eight bodies of 2 MB each: kept with their pieces, they would be 16 MB. One may stay
// as the regular expression engine's last input.
const AT_MOST = 6_000_000;

describe('ownCopy', () => {
  it('is the same text, lone surrogates included', () => {
    for (const text of [
      '',
      'short',
      'a longer piece of text',
      'caf\u00e9 \u6771\u4eac \ud83d\ude00',
      'lone \ud800 and \udc00 here',
    ])
      expect(ownCopy(text)).toBe(text);
  });

  it('keeps nothing of the text it was cut from', () => {
    expect(keptBytes((body) => ownCopy(body.slice(100, 200)))).toBeLessThan(AT_MOST);
  });
});

describe('pieces of an answer kept in an outcome do not keep its body', () => {
  it('a page title', () => {
    expect(keptBytes((body) => pageTitle(body))).toBeLessThan(AT_MOST);
  });

  it('a profile text', () => {
    expect(keptBytes((body) => cleanText(body.slice(1000, 1100), 200))).toBeLessThan(AT_MOST);
  });
});
