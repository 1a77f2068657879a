/**
 * A kind's site facts on Redis: one hash (the kind's, after the store's prefix), a field per
 * (origin, identity) holding the fact's stored fields as JSON. Expired or unreadable fields
 * are deleted as the hash is read; the hash stays small (only sites that taught something
 * have a field).
 */
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';
import type { SiteFact } from '../schedule/site-facts.js';
import type { SiteFactKind, SiteFactTable } from './site-fact-table.js';

/** Between origin and identity in a field name: a character neither holds. */
const SEPARATOR = '\u0000';

/** Deletes a field only while it holds what was read: another process may have just replaced it. */
const FORGET_UNCHANGED =
  "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0";

export class RedisSiteFacts<E extends SiteFact> implements SiteFactTable<E> {
  readonly #redis: Redis;
  readonly #kind: SiteFactKind<E>;
  readonly #key: string;

  /** `prefix` ends with a colon. */
  constructor(redis: Redis, prefix: string, kind: SiteFactKind<E>) {
    this.#redis = redis;
    this.#kind = kind;
    this.#key = `${prefix}${kind.hash}`;
  }

  async read(now: number): Promise<readonly E[]> {
    let fields: Record<string, string>;
    try {
      fields = await this.#redis.hgetall(this.#key);
    } catch (error) {
      throw asStoreError(error);
    }
    const facts: E[] = [];
    const expired: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const [origin = '', identity = ''] = field.split(SEPARATOR);
      const stored = parse(value);
      const fact = Number(stored.expiresAt) > now ? this.#kind.decode(origin, identity, stored) : undefined;
      if (fact) facts.push(fact);
      else expired.push(field);
    }
    // A failed sweep leaves the fields for the next read to find expired again.
    if (expired.length) await this.#forgetUnchanged(expired, fields).catch(() => {});
    return facts;
  }

  async keep(entry: E): Promise<void> {
    try {
      await this.#redis.hset(
        this.#key,
        `${entry.origin}${SEPARATOR}${entry.identity}`,
        JSON.stringify(this.#kind.encode(entry)),
      );
    } catch (error) {
      throw asStoreError(error);
    }
  }

  async #forgetUnchanged(fields: readonly string[], read: Record<string, string>): Promise<void> {
    for (const field of fields) await this.#redis.eval(FORGET_UNCHANGED, 1, this.#key, field, read[field]!);
  }
}

function parse(value: string): Readonly<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
  } catch {
    // Unreadable: dropped like an expired one.
  }
  return {};
}
