/**
 * What a file of store tests shares: a temporary folder for SQLite files and one Redis
 * connection, made before its tests and removed after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { connectTestRedis } from '../cluster/redis-support.js';

export interface StoreBackends {
  /** The folder, once the file's tests started. */
  readonly dir: string;
  /** The connection, once the file's tests started. */
  readonly redis: Redis;
}

/** Registers the hooks of the file (or describe block) it is called in; `prefix` names the folder. */
export function storeBackends(prefix: string): StoreBackends {
  const held: { dir?: string; redis?: Redis } = {};
  beforeAll(async () => {
    held.dir = mkdtempSync(join(tmpdir(), prefix));
    held.redis = await connectTestRedis();
  });
  afterAll(async () => {
    if (held.dir) rmSync(held.dir, { recursive: true, force: true });
    await held.redis?.quit();
  });
  return {
    get dir() {
      if (!held.dir) throw new Error('storeBackends: read before the tests started');
      return held.dir;
    },
    get redis() {
      if (!held.redis) throw new Error('storeBackends: read before the tests started');
      return held.redis;
    },
  };
}
