/**
 * The stored results of a followed search, encoded as Server-Sent Events once
 * per process: a stream that opens (or reconnects) gets what it missed from
 * here, and the store is asked only for results newer than those already
 * encoded. Without it, a thousand streams opening on one search each read and
 * encoded the whole backlog. Entries live while the search has a stream.
 */
import type { SearchStore } from '../store/roles/search-store.js';
import { sseFrame } from './event-fanout.js';

interface Encoded {
  /** Frames in seq order; seqs[i] is the seq of frames[i]. */
  readonly seqs: number[];
  readonly frames: string[];
  /** Highest seq read from the store. */
  lastSeq: number;
  /** The read in flight. */
  reading: Promise<void> | undefined;
  /** The read that begins when the one in flight ends (or at once): whoever comes now shares it. */
  queued: Promise<void> | undefined;
}

export class EventBacklog {
  readonly #store: Pick<SearchStore, 'listOutcomes'>;
  readonly #searches = new Map<string, Encoded>();

  constructor(store: Pick<SearchStore, 'listOutcomes'>) {
    this.#store = store;
  }

  /** The stored results after `afterSeq`, as frames joined, and the last seq they hold (or `afterSeq`). */
  async after(searchId: string, afterSeq: number): Promise<{ text: string; lastSeq: number }> {
    let entry = this.#searches.get(searchId);
    if (!entry) {
      entry = { seqs: [], frames: [], lastSeq: 0, reading: undefined, queued: undefined };
      this.#searches.set(searchId, entry);
    }
    await this.#catchUp(entry, searchId);
    // First frame past afterSeq (seqs ascend).
    let lo = 0;
    let hi = entry.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entry.seqs[mid]! <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= entry.frames.length) return { text: '', lastSeq: afterSeq };
    return { text: entry.frames.slice(lo).join(''), lastSeq: entry.seqs.at(-1)! };
  }

  /** Drops what was encoded for a search no stream follows any more. */
  forget(searchId: string): void {
    this.#searches.delete(searchId);
  }

  /**
   * Reads what is newer than the entry holds. A read must begin after the caller
   * subscribed (so nothing falls between the backlog and the live events): callers
   * share the next read that has not begun yet, so a thousand openers make two reads.
   */
  #catchUp(entry: Encoded, searchId: string): Promise<void> {
    if (entry.queued) return entry.queued;
    const before = entry.reading;
    const read = (async () => {
      // Always yields first, so this read is `entry.queued` when it runs on (callers only share it).
      await before?.catch(() => undefined);
      const self = entry.queued;
      entry.queued = undefined;
      entry.reading = self;
      try {
        for (const stored of await this.#store.listOutcomes(searchId, { afterSeq: entry.lastSeq })) {
          if (stored.seq <= entry.lastSeq) continue;
          entry.seqs.push(stored.seq);
          entry.frames.push(sseFrame('result', stored.outcome, stored.seq));
          entry.lastSeq = stored.seq;
        }
      } finally {
        if (entry.reading === self) entry.reading = undefined;
      }
    })();
    entry.queued = read;
    return read;
  }
}
