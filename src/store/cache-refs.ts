/**
 * A row of the outcome cache: which platforms of one search may be reused, checked when and
 * until when. It refers to the search's record instead of copying outcomes (a search's
 * outcomes are already kept compressed there), so an entry costs a few bytes. Pure.
 *
 * Row: one format byte (1), then two length-prefixed parts (compact-outcome.ts
 * `joinLengthPrefixed`): the search id in UTF-8, and varints: the row's expiry (its
 * last-expiring entry, ms epoch), the earliest check time (ms epoch), the number of distinct
 * lifetimes and each (whole seconds s as 2s + 1, else ms as 2ms), then per entry, in the
 * order of their positions in the search's `platformIds`: the step from the previous position
 * (from 0 for the first), its check time after the earliest (ms), and its lifetime's index.
 * An entry is three or four bytes: a batch's platforms lie close together, its checks within
 * a few hundred ms, and its lifetimes are a few (by status).
 */
import { decodeVarints, encodeVarints, joinLengthPrefixed, splitLengthPrefixed } from './compact-outcome.js';

const FORMAT_REFS = 1;

/** One platform of a cache row, by its position in the search's platforms. */
export interface CacheRef {
  readonly position: number;
  readonly cachedAt: number;
  readonly expiresAt: number;
}

export interface CacheRow {
  readonly searchId: string;
  /** The expiry of its last-expiring entry. */
  readonly expiresAt: number;
  readonly refs: readonly CacheRef[];
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The row of `refs` (at least one, times non-negative, each expiring after its check). */
export function encodeCacheRow(
  searchId: string,
  refs: readonly CacheRef[],
): { row: Uint8Array; expiresAt: number } {
  if (refs.length === 0) throw new RangeError('cache row: no entries');
  let base = Number.POSITIVE_INFINITY;
  let expiresAt = 0;
  for (const ref of refs) {
    if (!(ref.expiresAt > ref.cachedAt && ref.cachedAt >= 0 && ref.position >= 0))
      throw new RangeError(`cache row: an entry checked at ${ref.cachedAt} expires at ${ref.expiresAt}`);
    base = Math.min(base, ref.cachedAt);
    expiresAt = Math.max(expiresAt, ref.expiresAt);
  }
  const lifetimes: number[] = [];
  const lifetimeIndex = new Map<number, number>();
  const entries: number[] = [];
  let previous = 0;
  for (const ref of [...refs].sort((a, b) => a.position - b.position)) {
    const life = ref.expiresAt - ref.cachedAt;
    const code = life % 1000 === 0 ? (life / 1000) * 2 + 1 : life * 2;
    let index = lifetimeIndex.get(code);
    if (index === undefined) {
      index = lifetimes.push(code) - 1;
      lifetimeIndex.set(code, index);
    }
    entries.push(ref.position - previous, ref.cachedAt - base, index);
    previous = ref.position;
  }
  const numbers = [expiresAt, base, lifetimes.length, ...lifetimes, ...entries];
  const row = joinLengthPrefixed([utf8.encode(searchId), encodeVarints(numbers)]);
  const out = new Uint8Array(row.length + 1);
  out[0] = FORMAT_REFS;
  out.set(row, 1);
  return { row: out, expiresAt };
}

/** The row's search and entries; throws RangeError on bytes that are not a row. */
export function decodeCacheRow(bytes: Uint8Array): CacheRow {
  if (bytes[0] !== FORMAT_REFS) throw new RangeError(`cache row: unknown format ${bytes[0]}`);
  const parts = splitLengthPrefixed(bytes.subarray(1));
  if (parts.length !== 2) throw new RangeError(`cache row: ${parts.length} parts, not 2`);
  const searchId = textOf(parts[0]!);
  const numbers = decodeVarints(parts[1]!);
  const count = numbers[2] ?? 0;
  const start = 3 + count;
  if (
    count < 1 ||
    numbers.length < start + 3 ||
    (numbers.length - start) % 3 !== 0 ||
    !numbers.every(Number.isSafeInteger)
  )
    throw new RangeError('cache row: damaged entries');
  const [expiresAt, base] = numbers as [number, number];
  const lifetimes = numbers
    .slice(3, start)
    .map((code) => (code % 2 === 1 ? ((code - 1) / 2) * 1000 : code / 2));
  const refs: CacheRef[] = [];
  let position = 0;
  for (let i = start; i < numbers.length; i += 3) {
    position += numbers[i]!;
    const cachedAt = base + numbers[i + 1]!;
    const life = lifetimes[numbers[i + 2]!];
    if (life === undefined) throw new RangeError('cache row: an entry without its lifetime');
    refs.push({ position, cachedAt, expiresAt: cachedAt + life });
  }
  return { searchId, expiresAt, refs };
}

function textOf(bytes: Uint8Array): string {
  try {
    return fromUtf8.decode(bytes);
  } catch {
    throw new RangeError('cache row: the search id is not UTF-8');
  }
}
