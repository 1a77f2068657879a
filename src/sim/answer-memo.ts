/**
 * The answers the simulated web synthesized, kept by key up to a number of body
 * bytes, the least recently used let go first (src/lru.ts weighed by `bytesOf`).
 * Synthesis is pure, so a kept answer is the answer.
 */
import { Lru } from '../lru.js';

export class AnswerMemo<V> {
  readonly #kept: Lru<string, V>;

  /** `maxBytes` 0 keeps nothing; `bytesOf` a value's size, read once when it is kept. */
  constructor(maxBytes: number, bytesOf: (value: V) => number) {
    this.#kept = new Lru(maxBytes, bytesOf);
  }

  /** The value kept for `key`, else `make()`'s, kept when it fits. */
  get(key: string, make: () => V): V {
    const kept = this.#kept.get(key);
    if (kept !== undefined) return kept;
    const value = make();
    this.#kept.set(key, value);
    return value;
  }

  get size(): number {
    return this.#kept.size;
  }

  /** Bytes of the values kept, as `bytesOf` counted them. */
  get bytes(): number {
    return this.#kept.weight;
  }
}
