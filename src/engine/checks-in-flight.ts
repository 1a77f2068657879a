/**
 * Identical checks in flight in this process, each shared by the callers that want it
 * (pipeline/send-once.ts). A caller may leave (its search ended); a check nobody waits
 * for any more is cancelled if not sent yet, and never shared again.
 */
import type { Cancellation } from '../schedule/scheduler.js';

interface InFlight<T> {
  readonly result: Promise<T>;
  /** Its callers still waiting, those that can never leave included. */
  waiters: number;
  /** Reaches its booking: cancels it while it waits for its send time. */
  readonly cancel: Cancellation;
}

export class ChecksInFlight<T> {
  readonly #byKey = new Map<string, InFlight<T>>();

  /**
   * The result of the check `key` in flight, one more caller waiting for it; undefined when
   * none is. `leave`: filled in with how the caller stops waiting; absent, it never does.
   */
  join(key: string, leave: Cancellation | undefined): Promise<T> | undefined {
    const found = this.#byKey.get(key);
    if (found) this.#wait(found, key, leave);
    return found?.result;
  }

  /** Runs `run` as the check `key`, its caller the first waiting; `cancel` given to `run` reaches its booking. */
  start(key: string, leave: Cancellation | undefined, run: (cancel: Cancellation) => Promise<T>): Promise<T> {
    const cancel: Cancellation = {};
    const result = run(cancel).finally(() => {
      if (this.#byKey.get(key) === check) this.#byKey.delete(key);
    });
    const check: InFlight<T> = { result, waiters: 0, cancel };
    this.#byKey.set(key, check);
    this.#wait(check, key, leave);
    return result;
  }

  /** Cancels every check in flight not sent yet (the engine closing); those sent run on. */
  cancelAll(reason: unknown): void {
    for (const check of this.#byKey.values()) check.cancel.cancel?.(reason);
  }

  #wait(check: InFlight<T>, key: string, leave: Cancellation | undefined): void {
    check.waiters++;
    if (!leave) return;
    let left = false;
    leave.cancel = (reason) => {
      if (left) return;
      left = true;
      if (--check.waiters > 0) return;
      if (this.#byKey.get(key) === check) this.#byKey.delete(key);
      check.cancel.cancel?.(reason);
    };
  }
}
