/**
 * A map that keeps its most recently used entries up to a count: an LRU on a
 * Map's insertion order (an entry read or written moves to the end, the first
 * goes when there are too many). For caches of things read again soon: the
 * answers of finished searches (api/routes/search.ts), the rows of polled
 * searches and the decoded platform lists (store/sqlite.ts).
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, V>();

  /** `maxEntries` 0 keeps nothing. */
  constructor(readonly maxEntries: number) {}

  /** The value kept for `key`, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Keeps `value` as the most recently used, letting the least recently used go past `maxEntries`. */
  set(key: K, value: V): void {
    if (this.maxEntries === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as K;
      this.#entries.delete(oldest);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
