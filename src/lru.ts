/**
 * A map that keeps its most recently used entries up to a weight: an LRU on a
 * Map's insertion order (an entry read or written moves to the end, the first
 * goes when the entries weigh too much). Each entry weighs 1 unless a `weigh`
 * is given, so the bound is a count of entries by default. For caches of things
 * read again soon: the answers of finished searches (api/routes/search.ts), the
 * rows of polled searches and the decoded platform lists (store/sqlite.ts), the
 * simulated web's answers by their bytes (sim/answer-memo.ts), the TLS sessions
 * kept to resume (engine/transport/tls-sessions.ts).
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, { readonly value: V; readonly weight: number }>();
  #weight = 0;

  /**
   * `maxWeight` 0 keeps nothing; an entry heavier than it is not kept. `weigh`
   * (default: 1 an entry) is read once, when the entry is set.
   */
  constructor(
    readonly maxWeight: number,
    readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value kept for `key`, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` as the most recently used, letting the least recently used go past `maxWeight`. */
  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** What the entries kept weigh together (their count without a `weigh`). */
  get weight(): number {
    return this.#weight;
  }
}
