/**
 * Bounds the checks in flight: at most `global` at once, and at most `perHost`
 * to any one origin. A check waits for its host first (and for the shared host
 * gate, in cluster mode), so checks queued behind a busy host never hold a
 * global slot. Global slots go to the highest priority first (a professional
 * search's checks before a free one's), first come first served within one.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import PQueue from 'p-queue';
import type { HostGate } from './host-gate.js';

export class CheckLimiter {
  readonly #global: PQueue;
  readonly #perHost = new Map<string, LimitFunction>();
  readonly #perHostLimit: number;
  readonly #gate: HostGate | undefined;

  constructor(global: number, perHost: number, gate?: HostGate) {
    this.#global = new PQueue({ concurrency: global });
    this.#perHostLimit = perHost;
    this.#gate = gate;
  }

  /** Runs `task` when its origin and a global slot are free; higher `priority` first. */
  run<T>(origin: string, task: () => Promise<T>, priority = 0): Promise<T> {
    let host = this.#perHost.get(origin);
    if (!host) {
      host = pLimit(this.#perHostLimit);
      this.#perHost.set(origin, host);
    }
    const hostLimit = host;
    const gate = this.#gate;
    const inGlobal = () => this.#global.add(task, { priority });
    const gated = gate
      ? async () => {
          const release = await gate.acquire(origin);
          try {
            return await inGlobal();
          } finally {
            release();
          }
        }
      : inGlobal;
    return hostLimit(gated).finally(() => {
      if (hostLimit.activeCount === 0 && hostLimit.pendingCount === 0) this.#perHost.delete(origin);
    });
  }

  get active(): number {
    return this.#global.pending;
  }

  get pending(): number {
    return this.#global.size;
  }
}
