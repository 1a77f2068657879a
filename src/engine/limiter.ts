/**
 * Bounds the checks in flight: at most `global` at once, and at most `perHost`
 * to any one origin. A check waits for its host first (and for the shared host
 * gate, in cluster mode), so checks queued behind a busy host never hold a
 * global slot.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { HostGate } from './host-gate.js';

export class CheckLimiter {
  readonly #global: LimitFunction;
  readonly #perHost = new Map<string, LimitFunction>();
  readonly #perHostLimit: number;
  readonly #gate: HostGate | undefined;

  constructor(global: number, perHost: number, gate?: HostGate) {
    this.#global = pLimit(global);
    this.#perHostLimit = perHost;
    this.#gate = gate;
  }

  run<T>(origin: string, task: () => Promise<T>): Promise<T> {
    let host = this.#perHost.get(origin);
    if (!host) {
      host = pLimit(this.#perHostLimit);
      this.#perHost.set(origin, host);
    }
    const hostLimit = host;
    const gate = this.#gate;
    const inGlobal = () => this.#global(task);
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
    return this.#global.activeCount;
  }

  get pending(): number {
    return this.#global.pendingCount;
  }
}
