/**
 * The undici Agent's factory of per-origin dispatchers, with a smaller request
 * queue. undici's Pool allocates a 2048-slot array (16 KiB) for its queue up
 * front; a search reaches a thousand origins, most of them for one request that
 * never waits in that queue (the scheduler sends no more checks to an origin than
 * it has connections), so those arrays were 16 MiB of a CLI search's heap and
 * about 20 MB of its peak RSS. The pool's queue is swapped for an array that
 * grows only when something waits. The queue is a private field of undici's
 * pool: when this version of undici has none to swap (`leanQueueSupported`), the
 * pool is left as it is, and lean-pool.test.ts fails so the upgrade is noticed.
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { type IdleCap, idleCappedClients } from './idle-cap.js';
import { Client, Pool } from './undici-parts.js';

/** What undici's pool asks of its queue. */
interface RequestQueue<T> {
  isEmpty(): boolean;
  push(item: T): void;
  shift(): T | null;
}

/** A first-in first-out queue in an array, compacted as it empties. */
export class ArrayQueue<T> implements RequestQueue<T> {
  #items: T[] = [];
  #head = 0;

  isEmpty(): boolean {
    return this.#head === this.#items.length;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | null {
    if (this.#head === this.#items.length) return null;
    const item = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as T;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    }
    return item;
  }
}

/** The symbol of undici's pool queue field, found once on a pool of this version. */
function queueField(pool: UndiciPool): symbol | undefined {
  return Object.getOwnPropertySymbols(pool).find((s) => {
    if (s.description !== 'queue') return false;
    const queue = (pool as unknown as Record<symbol, unknown>)[s] as
      | Partial<RequestQueue<unknown>>
      | undefined;
    return typeof queue?.isEmpty === 'function' && typeof queue.push === 'function' && queue.isEmpty();
  });
}

let field: symbol | null | undefined;

/** Whether this version of undici's pool has the queue the factory swaps. */
export function leanQueueSupported(): boolean {
  if (field === undefined) {
    const probe = new Pool('http://probe.invalid');
    field = queueField(probe) ?? null;
    void probe.close();
  }
  return field !== null;
}

type AgentFactory = (origin: string | URL, options: object) => Dispatcher;

/**
 * Agent `factory`: a Client for one connection per origin, else a Pool with the
 * lean queue, and with `idle` its idle connections capped (idle-cap.ts).
 */
export function leanPools(idle?: IdleCap): AgentFactory {
  return (origin, options) => {
    const opts = options as UndiciPool.Options & { connections?: number | null };
    if (opts.connections === 1) return new Client(origin, opts);
    const capped = idle && (opts.connections == null || idle.kept < opts.connections);
    const pool = new Pool(origin, capped ? { ...opts, factory: idleCappedClients(idle) } : opts);
    if (leanQueueSupported()) (pool as unknown as Record<symbol, unknown>)[field!] = new ArrayQueue();
    return pool;
  };
}
