/**
 * Shares identical checks between workers: the first to claim a check (SET NX
 * with a lease) runs it and leaves the outcome in Redis for `keepMs`; the
 * others, and anyone asking within `keepMs`, take that outcome instead of
 * sending the same request. A
 * claim whose holder died expires with its lease and is taken over. When Redis
 * cannot be reached, or the wait runs past `maxWaitMs`, a process checks by
 * itself: sharing saves requests but never blocks a search.
 *
 * One key per check holds the claim (`CLAIM` and a token) and then the outcome
 * (JSON) in its place, so a check nobody shares costs two commands: the claim
 * (SET NX) and the outcome (SET, over the claim). The outcome may land over a
 * claim another process took after this one's lease ran out: it is the same
 * check's outcome, which that process's waiters may take as well as its own.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { SharedChecks } from '../engine/shared-checks.js';
import type { Outcome } from '../engine/verdict/outcome.js';

export interface RedisSharedChecksOptions {
  readonly redis: Redis;
  /** Key prefix, without the trailing colon. */
  readonly prefix: string;
  /** How long a claim holds without its check finishing (a check's deadline plus a margin). */
  readonly leaseMs: number;
  /** Longest wait for another process's outcome before checking here. */
  readonly maxWaitMs: number;
  /** How long a shared outcome stays readable for the processes waiting for it (not a cache). @default 2000 */
  readonly keepMs?: number;
  /** Pause between two looks at a running claim. @default 25 */
  readonly pollMs?: number;
  readonly onError?: (error: unknown) => void;
}

/** A claim's value starts so; an outcome's (JSON) starts with `{`. */
const CLAIM = 'claim:';

export class RedisSharedChecks implements SharedChecks {
  readonly #options: RedisSharedChecksOptions;

  constructor(options: RedisSharedChecksOptions) {
    this.#options = options;
  }

  async run(key: string, check: () => Promise<Outcome>, waiting?: () => void): Promise<Outcome> {
    const { redis, prefix, leaseMs, maxWaitMs, keepMs = 2_000, pollMs = 25, onError } = this.#options;
    const sharedKey = `${prefix}:shared-check:${key}`;
    const claim = CLAIM + randomUUID();
    const deadline = Date.now() + maxWaitMs;
    // Claim first (what nobody shares); while another process runs the check, only read.
    let claiming = true;
    for (let look = 0; Date.now() < deadline; ) {
      let value: string | null;
      try {
        if (claiming && (await redis.set(sharedKey, claim, 'PX', leaseMs, 'NX')) === 'OK')
          return this.#runClaimed(sharedKey, claim, keepMs, check);
        value = await redis.get(sharedKey);
      } catch (error) {
        onError?.(error);
        return check();
      }
      // Gone since (the claim expired or was given back, the outcome past keepMs): claim it.
      claiming = value === null;
      if (claiming) continue;
      if (!value!.startsWith(CLAIM)) return JSON.parse(value!) as Outcome;
      if (look === 0) waiting?.();
      await sleep(pollMs * Math.min(++look, 8));
    }
    return check();
  }

  async #runClaimed(
    sharedKey: string,
    claim: string,
    keepMs: number,
    check: () => Promise<Outcome>,
  ): Promise<Outcome> {
    const { redis, onError } = this.#options;
    let outcome: Outcome | undefined;
    try {
      outcome = await check();
      return outcome;
    } finally {
      // The outcome replaces the claim; a check that failed gives its claim back, if still ours.
      const done = outcome
        ? redis.set(sharedKey, JSON.stringify(outcome), 'PX', keepMs)
        : redis.eval(RELEASE, 1, sharedKey, claim);
      void done.catch((error: unknown) => onError?.(error));
    }
  }
}

const RELEASE = `
  if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
  return 0`;
