/**
 * Outcomes decoded from a running search's stored rows, kept for the next
 * read: a running search is polled about once a second by each of its
 * clients, and each poll lists every hit so far, so without this every hit
 * was decoded again on every poll (13% of the API thread's CPU under case 3's
 * load).
 * An outcome is taken from here only when its seq and its bytes are the ones
 * decoded before (a replaced outcome has a new seq; a search swept and created
 * again under the same key has other bytes or another username), so a read
 * never sees anything but what is stored. The outcomes kept are frozen, as
 * every reader shares them: what a view adds, it adds to a copy.
 */
import { freezeDeep } from '../catalogue/freeze.js';
import type { Outcome } from '../engine/outcome.js';

/**
 * Searches whose decoded outcomes are kept, the most recently read: more than
 * the searches that run at once by default, a few MB at most.
 */
export const DECODED_SEARCHES_KEPT = 16;

interface Decoded {
  readonly bytes: Uint8Array;
  readonly outcome: Outcome;
}

interface SearchOutcomes {
  readonly username: string;
  readonly bySeq: Map<number, Decoded>;
}

export class DecodedOutcomes {
  readonly #searches = new Map<number, SearchOutcomes>();
  readonly #kept: number;

  constructor(kept = DECODED_SEARCHES_KEPT) {
    this.#kept = kept;
  }

  /** The outcomes decoded so far of one search, by seq: the most recently read now. */
  of(searchKey: number, username: string): Map<number, Decoded> {
    let search = this.#searches.get(searchKey);
    this.#searches.delete(searchKey);
    if (search?.username !== username) search = { username, bySeq: new Map() };
    this.#searches.set(searchKey, search);
    if (this.#searches.size > this.#kept) this.#searches.delete(this.#searches.keys().next().value!);
    return search.bySeq;
  }
}

/** The outcome stored at `seq` as `bytes`, frozen: decoded once, then taken from `decoded` while its bytes are the same. */
export function decodedAt(
  decoded: Map<number, Decoded>,
  seq: number,
  bytes: Uint8Array,
  decode: (bytes: Uint8Array) => Outcome,
): Outcome {
  const known = decoded.get(seq);
  if (known !== undefined && Buffer.compare(known.bytes, bytes) === 0) return known.outcome;
  const outcome = freezeDeep(decode(bytes));
  decoded.set(seq, { bytes, outcome });
  return outcome;
}
