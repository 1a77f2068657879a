/**
 * Learned site limits on Redis: one hash, a field per (origin, identity) holding the limit as
 * JSON. Expired fields are deleted as the hash is read; the hash stays small (only sites that
 * answered 429 have a field).
 */
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';
import { type LearnedLimitEntry, learnedLimitOf, type SiteLimitStore } from './site-limits.js';

/** Between origin and identity in a field name: a character neither holds. */
const SEPARATOR = '\u0000';

export class RedisSiteLimits implements SiteLimitStore {
  readonly #redis: Redis;
  readonly #key: string;

  /** `prefix` ends with a colon. */
  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#key = `${prefix}site-limits`;
  }

  async learned(now: number): Promise<readonly LearnedLimitEntry[]> {
    let fields: Record<string, string>;
    try {
      fields = await this.#redis.hgetall(this.#key);
    } catch (error) {
      throw asStoreError(error);
    }
    const entries: LearnedLimitEntry[] = [];
    const expired: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const [origin = '', identity = ''] = field.split(SEPARATOR);
      const limit = learnedLimitOf(parse(value));
      if (!limit || limit.expiresAt <= now) expired.push(field);
      else entries.push({ origin, identity, limit });
    }
    // Another process may have just replaced one: only a field still holding what was read goes.
    if (expired.length) await forgetUnchanged(this.#redis, this.#key, expired, fields).catch(() => {});
    return entries;
  }

  async keep({ origin, identity, limit }: LearnedLimitEntry): Promise<void> {
    try {
      await this.#redis.hset(this.#key, `${origin}${SEPARATOR}${identity}`, JSON.stringify(limit));
    } catch (error) {
      throw asStoreError(error);
    }
  }
}

/**
 * Deletes the `fields` of the hash at `key` that still hold what was `read`: another process
 * may have just replaced one. For hashes of expiring entries, read whole and swept as read.
 */
export async function forgetUnchanged(
  redis: Redis,
  key: string,
  fields: readonly string[],
  read: Record<string, string>,
): Promise<void> {
  for (const field of fields) {
    await redis.eval(
      "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0",
      1,
      key,
      field,
      read[field]!,
    );
  }
}

function parse(value: string): { perSecond: unknown; stated: unknown; at: unknown; expiresAt: unknown } {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object') return parsed as ReturnType<typeof parse>;
  } catch {
    // Unreadable: dropped like an expired one.
  }
  return { perSecond: undefined, stated: undefined, at: undefined, expiresAt: undefined };
}
