/**
 * What every process learns about a site through one egress identity and shares through
 * a shelf (the store), each fact until it expires: the books of learned limits
 * (site-limit-book.ts) and of needed transports (transport-book.ts) keep theirs here.
 * Reads answer from this process's copy; a fact learned here is written through, and the
 * shelf is read back now and then (shelf-refresh.ts), the later lesson standing.
 */
import { ShelfRefresh } from './shelf-refresh.js';

/** A fact about one site through one identity. */
export interface SiteFact {
  readonly origin: string;
  readonly identity: string;
}

export interface SiteFactsOptions<E extends SiteFact> {
  /** Every fact on the shelf not expired at `now` (wall-clock ms). */
  readonly read: (now: number) => Promise<readonly E[]>;
  /** Puts `entry` on the shelf, replacing its site's and identity's. */
  readonly keep: (entry: E) => Promise<void>;
  /** When `entry` is forgotten (wall-clock ms). */
  readonly expiresAt: (entry: E) => number;
  /** Of this process's `mine` and the shelf's `theirs` for one key, the one to keep. */
  readonly merge: (mine: E, theirs: E) => E;
  /** Wall clock (ms). @default Date.now */
  readonly clock?: () => number;
  /** How old this process's copy may be before the shelf is read again (ms). @default 5000 */
  readonly refreshMs?: number;
  /** Told when the shelf cannot be read or written: the copy here goes on meanwhile. */
  readonly onError?: (error: unknown) => void;
}

function keyOf(origin: string, identity: string): string {
  return `${origin}\u0000${identity}`;
}

export class SiteFacts<E extends SiteFact> {
  readonly #options: SiteFactsOptions<E>;
  readonly #clock: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #copy = new Map<string, E>();
  readonly #refresh: ShelfRefresh;

  constructor(options: SiteFactsOptions<E>) {
    this.#options = options;
    // Read through Date each time, so a clock set later (a test's fake timers) is the one used.
    this.#clock = options.clock ?? (() => Date.now());
    this.#onError = options.onError ?? (() => {});
    this.#refresh = new ShelfRefresh({
      read: (now) => this.#read(now),
      clock: this.#clock,
      refreshMs: options.refreshMs ?? 5_000,
      onError: this.#onError,
    });
  }

  /** The wall clock the facts are kept on (ms). */
  now(): number {
    return this.#clock();
  }

  /** The fact about `origin` through `identity` as this process has it (the shelf is read again when stale). */
  get(origin: string, identity: string, now = this.#clock()): E | undefined {
    if (this.#refresh.stale(now)) void this.fresh();
    if (this.#copy.size === 0) return undefined;
    return this.#copy.get(keyOf(origin, identity));
  }

  /** A fact learned here: kept in the copy and written through to the shelf. */
  set(entry: E): void {
    this.#copy.set(keyOf(entry.origin, entry.identity), entry);
    this.#options.keep(entry).catch(this.#onError);
  }

  /** Reads the shelf again when the copy is older than the refresh interval, waiting a bounded time. */
  fresh(): Promise<void> {
    return this.#refresh.fresh();
  }

  async #read(now: number): Promise<void> {
    const entries = await this.#options.read(now);
    for (const [key, entry] of this.#copy) if (this.#options.expiresAt(entry) <= now) this.#copy.delete(key);
    for (const entry of entries) {
      const key = keyOf(entry.origin, entry.identity);
      const mine = this.#copy.get(key);
      this.#copy.set(key, mine ? this.#options.merge(mine, entry) : entry);
    }
  }
}

/** A shelf in this process's memory, for an engine with no store. */
export class MemoryShelf<E extends SiteFact> {
  readonly #entries = new Map<string, E>();
  readonly #expiresAt: (entry: E) => number;

  constructor(expiresAt: (entry: E) => number) {
    this.#expiresAt = expiresAt;
  }

  /** Every entry not expired at `now`. */
  async entries(now: number): Promise<readonly E[]> {
    for (const [key, entry] of this.#entries) if (this.#expiresAt(entry) <= now) this.#entries.delete(key);
    return [...this.#entries.values()];
  }

  async keep(entry: E): Promise<void> {
    this.#entries.set(keyOf(entry.origin, entry.identity), entry);
  }
}
