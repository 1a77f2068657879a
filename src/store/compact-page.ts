/**
 * Many outcomes of one search in one compressed page: their compact encodings
 * (compact-outcome.ts, the one format every backend stores) laid end to end
 * and brotli-compressed together. Alone, a hit's evidence (snippet, control,
 * profile) is most of its bytes; together, what a search's hits repeat (page
 * context, profile values, control wording) compresses away. A backend writes
 * a page when a search ends, so the rows written while it runs stay cheap to
 * poll, and reads a page whole (a search's page decompresses in about a
 * millisecond).
 *
 * Page: one format byte (2), then brotli of: varint count, then each outcome as
 * varint length + its compact bytes, in seq order. Format 1 is outcome-page.ts's
 * column page (PostgreSQL before this one).
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompressSync, constants } from 'node:zlib';
import { decodeVarints, encodeVarints, joinLengthPrefixed, splitLengthPrefixed } from './compact-outcome.js';

const compress = promisify(brotliCompress);

export const FORMAT_COMPACT_PAGE = 2;

/**
 * Brotli quality of a page. A search's page is written once, on libuv's thread
 * pool: 9 is within a few percent of 11's size at a fraction of its time (about
 * 40 ms for a search of a thousand platforms). A batch page (PostgreSQL, while a
 * search runs) is small and written often: 5.
 */
export const COMPACT_PAGE_QUALITY = { batch: 5, merged: 9 } as const;

/** The outcomes' compact bytes, in one page. Compression runs off the event loop. */
export async function encodeCompactPage(
  encoded: readonly Uint8Array[],
  quality: number = COMPACT_PAGE_QUALITY.merged,
): Promise<Buffer> {
  const raw = joinLengthPrefixed(encoded);
  const data = await compress(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  return Buffer.concat([Buffer.of(FORMAT_COMPACT_PAGE), data]);
}

/** Each outcome's compact bytes, in the order written. */
export function decodeCompactPage(page: Uint8Array): Uint8Array[] {
  if (page[0] !== FORMAT_COMPACT_PAGE) throw new RangeError(`compact page: unknown format ${page[0]}`);
  return splitLengthPrefixed(brotliDecompressSync(page.subarray(1)));
}

/**
 * Each outcome's seq in a page holding a search's outcomes up to `lastSeq`: 1, 2, 3...
 * when `seqs` is null, else the steps `encodePageSeqs` wrote (a replaced outcome leaves a gap).
 */
export function pageSeqs(seqs: Uint8Array | null, lastSeq: number): number[] {
  if (seqs === null) return Array.from({ length: lastSeq }, (_, i) => i + 1);
  let seq = 0;
  return decodeVarints(seqs).map((step) => (seq += step));
}

/** Null for 1, 2, 3..., else the steps between seqs (mostly 1: a byte each). */
export function encodePageSeqs(seqs: readonly number[]): Uint8Array | null {
  if (seqs.every((seq, i) => seq === i + 1)) return null;
  return encodeVarints(seqs.map((seq, i) => seq - (i === 0 ? 0 : seqs[i - 1]!)));
}
