/**
 * Starts the checks of every running search only as the engine can take them,
 * instead of all of a search's checks at once. A check waiting in line for a
 * global slot holds its request, its closures and its promises (about 6 KB);
 * eight searches of 1,300 platforms queued ~10,000 of them at once. The feeder
 * keeps at most `ahead` started checks of a priority or higher in that line and
 * starts the next one whenever one leaves it (holds a slot, waits on its own
 * site, or ends). Counted from its own priority up, a professional search's
 * check is started at once however many free ones are in line, and goes ahead
 * of them, as when every check was queued at once.
 *
 * Which check next: the highest priority first (a professional search's), then
 * the search that started first, each search in its own order (slowest first,
 * check-order.ts): the order the engine's line served when every check was
 * queued at once. A check that waits on its site (its origin's cap of checks in
 * flight, or the sleep until its rate-budget slot) has left the line, so a
 * budget-bound site never holds back checks to other sites (no head-of-line
 * blocking). Pure data structure: what a start does is the caller's.
 */

/** The work of one search: its checks, in the order they should start. */
export interface FeedSource<T> {
  /** Higher is started first. */
  readonly priority: number;
  /** What to check, in order. */
  readonly items: readonly T[];
  /**
   * Starts the check of `item`. `leftLine` must be called once the check no
   * longer waits in line for its first global slot (calls after the first are
   * ignored); its end counts as leaving too.
   */
  readonly start: (item: T, leftLine: () => void) => void;
}

/** A source being fed; `close` stops its unstarted items from ever starting. */
export interface Feed {
  close(): void;
  /** Items of the source not started yet. */
  readonly unstarted: number;
}

interface Entry<T> {
  readonly source: FeedSource<T>;
  /** Index of the next item to start. */
  next: number;
}

export class CheckFeeder {
  readonly #ahead: number;
  /** Sources with items left to start, by priority (highest first), then arrival. */
  readonly #entries: Entry<unknown>[] = [];
  /** Checks started and still in line for their first global slot, by priority. */
  readonly #inLine = new Map<number, number>();
  #filling = false;

  /** `ahead`: checks in line for a global slot at most (at least 1). */
  constructor(ahead: number) {
    if (!Number.isInteger(ahead) || ahead < 1)
      throw new RangeError(`ahead must be a whole number of at least 1; received ${ahead}`);
    this.#ahead = ahead;
  }

  /** Checks started and still waiting in line for a global slot, of `priority` or higher. */
  inLine(priority = Number.NEGATIVE_INFINITY): number {
    let n = 0;
    for (const [p, count] of this.#inLine) if (p >= priority) n += count;
    return n;
  }

  /** Feeds `source` from now on, starting what the line has room for at once. */
  add<T>(source: FeedSource<T>): Feed {
    const entry: Entry<T> = { source, next: 0 };
    if (source.items.length > 0) {
      const at = this.#entries.findIndex((e) => e.source.priority < source.priority);
      this.#entries.splice(at === -1 ? this.#entries.length : at, 0, entry as Entry<unknown>);
    }
    this.#fill();
    return {
      close: () => {
        entry.next = source.items.length;
        this.#drop(entry as Entry<unknown>);
      },
      get unstarted() {
        return source.items.length - entry.next;
      },
    };
  }

  #drop(entry: Entry<unknown>): void {
    const at = this.#entries.indexOf(entry);
    if (at !== -1) this.#entries.splice(at, 1);
  }

  #fill(): void {
    // A start may end its check at once (a name the platform refuses) and call back here.
    if (this.#filling) return;
    this.#filling = true;
    try {
      for (;;) {
        const entry = this.#entries[0];
        if (!entry) return;
        const { priority, items } = entry.source;
        // Lower priorities have at least as many in line from theirs up: none can start either.
        if (this.inLine(priority) >= this.#ahead) return;
        const item = items[entry.next++];
        if (entry.next >= items.length) this.#drop(entry);
        this.#inLine.set(priority, (this.#inLine.get(priority) ?? 0) + 1);
        let left = false;
        entry.source.start(item, () => {
          if (left) return;
          left = true;
          const count = (this.#inLine.get(priority) ?? 1) - 1;
          if (count === 0) this.#inLine.delete(priority);
          else this.#inLine.set(priority, count);
          this.#fill();
        });
      }
    } finally {
      this.#filling = false;
    }
  }
}
