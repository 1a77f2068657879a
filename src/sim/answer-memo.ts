/**
 * The answers the simulated web synthesized, kept by key up to a number of body
 * bytes, the most recently used first out of the way of eviction (an LRU on a
 * Map's insertion order). Synthesis is pure, so a kept answer is the answer.
 */

export class AnswerMemo<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  #bytes = 0;

  /** `maxBytes` 0 keeps nothing. */
  constructor(readonly maxBytes: number) {}

  /** The value kept for `key`, else `make()`'s, kept when it fits (`bytesOf` its size). */
  get(key: string, make: () => V, bytesOf: (value: V) => number): V {
    const kept = this.#entries.get(key);
    if (kept) {
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      return kept.value;
    }
    const value = make();
    const bytes = bytesOf(value);
    if (bytes > this.maxBytes) return value;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of the values kept, as `bytesOf` counted them. */
  get bytes(): number {
    return this.#bytes;
  }
}
