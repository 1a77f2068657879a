/**
 * A running search's stored rows as its last poll read them, so the next poll
 * reads only the rows stored since (seq above the last one seen): a running
 * search is polled about once a second by each of its clients, and each poll
 * lists every hit so far, so reading all its rows on every poll costs CPU that
 * grows with the searches running (the SQL read, a byte comparison and a lookup
 * per row).
 *
 * Why the rows since are enough: a search's seqs only grow (each write takes the
 * search's `outcome_count` + 1, in a write transaction, whichever handle writes),
 * a replaced outcome moves its platform's row to a new seq, and a row never
 * changes at the seq it has. Rows of every status are kept, and filtered here,
 * so a hit replaced by a miss leaves a hits-only poll. What could break this (a
 * search's rows swept, or moved into its page and back) is caught by the
 * caller's check against the rows' count by status, read in the same
 * transaction: on any difference the search is read again from the start.
 *
 * The outcomes kept are frozen, as every reader shares them: what a view adds,
 * it adds to a copy. An outcome is decoded the first time a poll lists it; the
 * bytes of one no poll listed yet (a miss, when the polls ask for hits) are not
 * kept but read again by its key if a poll lists it later: a running search's
 * ~1,000 misses' bytes would double what is kept of it.
 */
import { freezeDeep } from '../catalogue/freeze.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { Lru } from '../lru.js';

/**
 * Searches whose rows are kept, the most recently polled. Only a search with rows
 * and no page has any: a running one, or one finished but not yet packed (its
 * next poll reads the page and forgets it). A process runs 24 searches at once per
 * egress identity by default (`maxRunningSearches`), fewer of them with rows while
 * they wait for their sites' budgets; 64 holds those of two identities and the ones
 * just finished, so polling every running search in turn never evicts one (a cache
 * smaller than the searches polled in turn misses on every poll). A search of 1,500
 * rows polled for its 500 hits keeps ~0.4 MB (measured; the cache of decoded hits
 * before kept ~0.45): ~3 MB for 8 running, 23 MB for 64.
 */
export const POLLED_SEARCHES_KEPT = 64;

/** A stored outcome row, as the polls read it. */
export interface OutcomeRow {
  readonly seq: number;
  /** Vocabulary id of the platform id: a search stores one row per platform. */
  readonly platform: number;
  /** Index in STATUS_CODES. */
  readonly status: number;
  readonly outcome: Uint8Array;
}

interface Kept {
  readonly seq: number;
  readonly status: number;
  /** The stored bytes, from when the row is read to the end of that poll's listing. */
  bytes: Uint8Array | undefined;
  outcome: Outcome | undefined;
}

/** One search's rows, by platform, in seq order (a row read later has a higher seq: moved to the end). */
export class PolledSearch {
  /** The search's id and username: its key is never reused, but a search is never taken for another. */
  readonly id: string;
  readonly username: string;
  #lastSeq = 0;
  readonly #byPlatform = new Map<number, Kept>();
  /** Rows by status index, to compare with the rows stored. */
  readonly #counts: number[] = [];

  constructor(id: string, username: string) {
    this.id = id;
    this.username = username;
  }

  /** The highest seq read: the next poll reads the rows after it. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Whether the rows kept are as many, status by status, as `counts` (rows stored by status index). */
  matches(counts: readonly number[]): boolean {
    const length = Math.max(counts.length, this.#counts.length);
    for (let i = 0; i < length; i++) if ((counts[i] ?? 0) !== (this.#counts[i] ?? 0)) return false;
    return true;
  }

  /** Takes rows stored after `lastSeq`, in seq order: a platform's later row replaces its earlier one. */
  take(rows: readonly OutcomeRow[]): void {
    for (const row of rows) {
      const known = this.#byPlatform.get(row.platform);
      if (known !== undefined) {
        this.#counts[known.status]!--;
        this.#byPlatform.delete(row.platform);
      }
      this.#byPlatform.set(row.platform, {
        seq: row.seq,
        status: row.status,
        bytes: row.outcome,
        outcome: undefined,
      });
      this.#counts[row.status] = (this.#counts[row.status] ?? 0) + 1;
      if (row.seq > this.#lastSeq) this.#lastSeq = row.seq;
    }
  }

  /**
   * The outcomes of the statuses given (by index; all when undefined), in seq order,
   * frozen and shared. `read`: the bytes stored for the platform at that seq, for an
   * outcome whose bytes were not kept; undefined (the rows are not those kept, which
   * the caller's check rules out) makes the whole list undefined: read from the start.
   */
  list(
    statuses: ReadonlySet<number> | undefined,
    decode: (bytes: Uint8Array) => Outcome,
    read: (platform: number, seq: number) => Uint8Array | undefined,
  ): { seq: number; outcome: Outcome }[] | undefined {
    const listed: { seq: number; outcome: Outcome }[] = [];
    for (const [platform, kept] of this.#byPlatform) {
      if (statuses !== undefined && !statuses.has(kept.status)) {
        kept.bytes = undefined;
        continue;
      }
      if (kept.outcome === undefined) {
        const bytes = kept.bytes ?? read(platform, kept.seq);
        if (bytes === undefined) return undefined;
        kept.outcome = freezeDeep(decode(bytes));
        kept.bytes = undefined;
      }
      listed.push({ seq: kept.seq, outcome: kept.outcome });
    }
    return listed;
  }
}

/** The polled searches kept, by search key, the most recently polled last. */
export class PolledOutcomes {
  readonly #searches: Lru<number, PolledSearch>;

  constructor(kept = POLLED_SEARCHES_KEPT) {
    this.#searches = new Lru(kept);
  }

  /**
   * The search's rows kept, when they can be followed: same id and username, no seq seen
   * beyond `outcomeCount` (the last seq the search gave), as many rows by status as
   * `counts` (those stored) once the rows after its `lastSeq` are taken — the caller
   * checks that. Else a fresh, empty one, to read from the start.
   */
  of(searchKey: number, id: string, username: string, outcomeCount: number): PolledSearch {
    let search = this.#searches.get(searchKey);
    if (search?.id !== id || search.username !== username || search.lastSeq > outcomeCount) {
      search = new PolledSearch(id, username);
      this.#searches.set(searchKey, search);
    }
    return search;
  }

  /** Starts the search over: its rows are read again from the start. */
  restart(searchKey: number, id: string, username: string): PolledSearch {
    const search = new PolledSearch(id, username);
    this.#searches.set(searchKey, search);
    return search;
  }

  forget(searchKey: number): void {
    this.#searches.delete(searchKey);
  }
}
