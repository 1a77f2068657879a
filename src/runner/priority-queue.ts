/**
 * Professional searches start before queued free ones, but after
 * `proBurst` professional starts in a row a waiting free search goes next,
 * so free searches always make progress. Pure data structure.
 */
import type { Tier } from '../store/store.js';

export class TierQueue<T> {
  readonly #queues: Record<Tier, T[]> = { professional: [], free: [] };
  readonly #proBurst: number;
  #proStreak = 0;

  constructor(proBurst = 3) {
    this.#proBurst = proBurst;
  }

  get size(): number {
    return this.#queues.professional.length + this.#queues.free.length;
  }

  push(tier: Tier, item: T): void {
    this.#queues[tier].push(item);
  }

  /** How many would start before a new item of this tier. */
  ahead(tier: Tier): number {
    return tier === 'professional' ? this.#queues.professional.length : this.size;
  }

  shift(): T | undefined {
    const { professional, free } = this.#queues;
    const takePro = professional.length > 0 && (free.length === 0 || this.#proStreak < this.#proBurst);
    if (takePro) {
      this.#proStreak++;
      return professional.shift();
    }
    this.#proStreak = 0;
    return free.shift();
  }

  remove(predicate: (item: T) => boolean): void {
    for (const tier of ['professional', 'free'] as const) {
      this.#queues[tier] = this.#queues[tier].filter((i) => !predicate(i));
    }
  }
}
