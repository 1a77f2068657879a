/**
 * The one owner of which transport sites were found to need, per (site, egress identity):
 * a check asks it where to start (`needed`) and tells it when an escalation got past the
 * site's defence (`learned`). It answers from this process's copy, written through to a
 * shelf (the store, shared across a cluster) and read back from it now and then, so a
 * transport one process learns starts the other processes' next checks there too. What
 * is kept expires: a site that stops defending itself is tried the cheap way again.
 */
import type { Transport } from '../catalogue/platform.js';
import { MemoryShelf, SiteFacts } from '../schedule/site-facts.js';

/** The transport a site needed through one identity (shared across processes, so plain data). */
export interface RememberedTransport {
  readonly origin: string;
  readonly identity: string;
  readonly transport: Transport;
  /** When it was learned (wall-clock ms): of two processes' lessons, the later stands. */
  readonly at: number;
  /** When it is forgotten (wall-clock ms). */
  readonly expiresAt: number;
}

/** Where remembered transports are kept for every process (the store's `transportMemory`). */
export interface TransportShelf {
  /** Every remembered transport not expired at `now` (wall-clock ms). */
  remembered(now: number): Promise<readonly RememberedTransport[]>;
  /** Keeps `entry`, replacing its (origin, identity)'s, until its `expiresAt`. */
  keep(entry: RememberedTransport): Promise<void>;
}

/** A shelf in this process's memory: the default of an engine with no store. */
export class MemoryTransportShelf implements TransportShelf {
  readonly #shelf = new MemoryShelf<RememberedTransport>((entry) => entry.expiresAt);

  remembered(now: number): Promise<readonly RememberedTransport[]> {
    return this.#shelf.entries(now);
  }

  keep(entry: RememberedTransport): Promise<void> {
    return this.#shelf.keep(entry);
  }
}

export interface TransportBookOptions {
  /** How long a learned transport is kept (ms). */
  readonly ttlMs: number;
  /** @default a MemoryTransportShelf */
  readonly shelf?: TransportShelf;
  /** Wall clock (ms). @default Date.now */
  readonly clock?: () => number;
  /** How old this process's copy may be before the shelf is read again (ms). @default 5000 */
  readonly refreshMs?: number;
  /** Told when the shelf cannot be read or written: the copy here goes on meanwhile. */
  readonly onError?: (error: unknown) => void;
}

export class TransportBook {
  readonly #ttlMs: number;
  readonly #facts: SiteFacts<RememberedTransport>;

  constructor(options: TransportBookOptions) {
    this.#ttlMs = options.ttlMs;
    const shelf = options.shelf ?? new MemoryTransportShelf();
    this.#facts = new SiteFacts<RememberedTransport>({
      read: (now) => shelf.remembered(now),
      keep: (entry) => shelf.keep(entry),
      expiresAt: (entry) => entry.expiresAt,
      // The later lesson stands, whoever learned it.
      merge: (mine, theirs) => (theirs.at > mine.at ? theirs : mine),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /** The transport `origin` was last found to need through `identity`, unless forgotten. */
  needed(origin: string, identity: string): Transport | undefined {
    const now = this.#facts.now();
    const entry = this.#facts.get(origin, identity, now);
    return entry && entry.expiresAt > now ? entry.transport : undefined;
  }

  /** An escalation to `transport` got past the defence of `origin` through `identity`. */
  learned(origin: string, identity: string, transport: Transport): void {
    const at = this.#facts.now();
    this.#facts.set({ origin, identity, transport, at, expiresAt: at + this.#ttlMs });
  }

  /**
   * Reads the shelf again when this process's copy is older than the refresh interval (a
   * search asks before it starts), waiting a bounded time (shelf-refresh.ts).
   */
  fresh(): Promise<void> {
    return this.#facts.fresh();
  }
}
