/**
 * Remembered transports on Redis: one hash, a field per (origin, identity) holding the entry
 * as JSON. Expired fields are deleted as the hash is read; the hash stays small (only sites
 * an escalation got past have a field).
 */
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';
import { forgetUnchanged } from './redis-site-limits.js';
import {
  type RememberedTransport,
  rememberedTransportOf,
  type TransportMemoryStore,
} from './transport-memory.js';

/** Between origin and identity in a field name: a character neither holds. */
const SEPARATOR = '\u0000';

export class RedisTransportMemory implements TransportMemoryStore {
  readonly #redis: Redis;
  readonly #key: string;

  /** `prefix` ends with a colon. */
  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#key = `${prefix}transport-memory`;
  }

  async remembered(now: number): Promise<readonly RememberedTransport[]> {
    let fields: Record<string, string>;
    try {
      fields = await this.#redis.hgetall(this.#key);
    } catch (error) {
      throw asStoreError(error);
    }
    const entries: RememberedTransport[] = [];
    const expired: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const [origin = '', identity = ''] = field.split(SEPARATOR);
      const entry = rememberedTransportOf({ ...parse(value), origin, identity });
      if (!entry || entry.expiresAt <= now) expired.push(field);
      else entries.push(entry);
    }
    if (expired.length) await forgetUnchanged(this.#redis, this.#key, expired, fields).catch(() => {});
    return entries;
  }

  async keep({ origin, identity, transport, at, expiresAt }: RememberedTransport): Promise<void> {
    try {
      await this.#redis.hset(
        this.#key,
        `${origin}${SEPARATOR}${identity}`,
        JSON.stringify({ transport, at, expiresAt }),
      );
    } catch (error) {
      throw asStoreError(error);
    }
  }
}

function parse(value: string): { transport: unknown; at: unknown; expiresAt: unknown } {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object') return parsed as ReturnType<typeof parse>;
  } catch {
    // Unreadable: dropped like an expired one.
  }
  return { transport: undefined, at: undefined, expiresAt: undefined };
}
