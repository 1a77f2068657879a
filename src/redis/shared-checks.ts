/**
 * Shares identical checks between workers: the first to claim a check (SET NX
 * with a lease) runs it and leaves the outcome in Redis for `keepMs`; the
 * others, and anyone asking within `keepMs`, take that outcome instead of
 * sending the same request. A
 * claim whose holder died expires with its lease and is taken over. When Redis
 * cannot be reached, or the wait runs past `maxWaitMs`, a process checks by
 * itself: sharing saves requests but never blocks a search.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Outcome } from '../engine/outcome.js';
import type { SharedChecks } from '../engine/shared-checks.js';

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

const CLAIMED = 0;
const SHARED = 1;
const RUNNING = 2;

const SHARE = {
  numberOfKeys: 2,
  // KEYS: claim, result. ARGV: token, leaseMs. The outcome first: a claim given back after it
  // was published must not start the same check again.
  lua: `
    local result = redis.call('GET', KEYS[2])
    if result then return {${SHARED}, result} end
    if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {${CLAIMED}, ''} end
    return {${RUNNING}, ''}`,
};

type WithShare = Redis & {
  usShareCheck(
    claimKey: string,
    resultKey: string,
    token: string,
    leaseMs: number,
  ): Promise<[number, string]>;
};

export class RedisSharedChecks implements SharedChecks {
  readonly #options: RedisSharedChecksOptions;
  readonly #redis: WithShare;

  constructor(options: RedisSharedChecksOptions) {
    this.#options = options;
    if (!('usShareCheck' in options.redis)) options.redis.defineCommand('usShareCheck', SHARE);
    this.#redis = options.redis as WithShare;
  }

  async run(key: string, check: () => Promise<Outcome>, waiting?: () => void): Promise<Outcome> {
    const { prefix, leaseMs, maxWaitMs, keepMs = 2_000, pollMs = 25, onError } = this.#options;
    const claimKey = `${prefix}:check:${key}`;
    const resultKey = `${prefix}:check-result:${key}`;
    const token = randomUUID();
    const deadline = Date.now() + maxWaitMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      let answer: [number, string];
      try {
        answer = await this.#redis.usShareCheck(claimKey, resultKey, token, leaseMs);
      } catch (error) {
        onError?.(error);
        return check();
      }
      if (answer[0] === CLAIMED) return this.#runClaimed(claimKey, resultKey, token, keepMs, check);
      if (answer[0] === SHARED) return JSON.parse(answer[1]) as Outcome;
      if (attempt === 0) waiting?.();
      await sleep(pollMs * Math.min(attempt + 1, 8));
    }
    return check();
  }

  async #runClaimed(
    claimKey: string,
    resultKey: string,
    token: string,
    keepMs: number,
    check: () => Promise<Outcome>,
  ): Promise<Outcome> {
    const { redis, onError } = this.#options;
    let outcome: Outcome | undefined;
    try {
      outcome = await check();
      return outcome;
    } finally {
      const done = outcome;
      const publish = done ? redis.set(resultKey, JSON.stringify(done), 'PX', keepMs) : Promise.resolve(null);
      // Give the claim back only if still ours (it may have expired and been taken over).
      void publish
        .then(() => redis.eval(RELEASE, 1, claimKey, token))
        .catch((error: unknown) => onError?.(error));
    }
  }
}

const RELEASE = `
  if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
  return 0`;
