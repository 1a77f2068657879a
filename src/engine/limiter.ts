/**
 * Bounds the checks in flight: at most `global` at once, and at most `perHost`
 * to any one origin. A check waits for its host first, so checks queued behind a
 * busy host never hold a global slot.
 */
import pLimit, { type LimitFunction } from 'p-limit';

export class CheckLimiter {
  readonly #global: LimitFunction;
  readonly #perHost = new Map<string, LimitFunction>();
  readonly #perHostLimit: number;

  constructor(global: number, perHost: number) {
    this.#global = pLimit(global);
    this.#perHostLimit = perHost;
  }

  run<T>(origin: string, task: () => Promise<T>): Promise<T> {
    let host = this.#perHost.get(origin);
    if (!host) {
      host = pLimit(this.#perHostLimit);
      this.#perHost.set(origin, host);
    }
    const hostLimit = host;
    return hostLimit(() => this.#global(task)).finally(() => {
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
