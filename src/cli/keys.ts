/**
 * `userscout keys create|list|revoke`: professional API keys. A key is shown
 * once, when it is created; only its SHA-256 is stored.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hashApiKey } from '../api/auth.js';
import { loadConfig } from '../config.js';
import { UserscoutError } from '../errors.js';
import { DATABASE_FILE } from '../service.js';
import { createStore } from '../store/create-store.js';
import type { KeyStore } from '../store/roles/key-store.js';
import { TIERS, type Tier } from '../store/roles/search-store.js';
import type { Store } from '../store/store.js';

export async function withStore<T>(
  dataDir: string | undefined,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const config = loadConfig(dataDir !== undefined ? { dataDir } : {});
  // Keys live in the store of record: PostgreSQL when set, else Redis in cluster mode, where
  // every API process finds them, else the SQLite file.
  if (!config.redisUrl && !config.databaseUrl) mkdirSync(config.dataDir, { recursive: true });
  const store = config.databaseUrl
    ? createStore({ kind: 'postgres', url: config.databaseUrl })
    : config.redisUrl
      ? createStore({ kind: 'redis', redis: config.redisUrl, prefix: config.redisPrefix, now: Date.now })
      : createStore({ kind: 'sqlite', path: join(config.dataDir, DATABASE_FILE) });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function newApiKey(): string {
  return `usk_${randomBytes(24).toString('base64url')}`;
}

export async function createKey(
  store: KeyStore,
  name: string,
  tier: string,
): Promise<{ id: string; key: string }> {
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new UserscoutError(
      'invalid_argument',
      `--tier must be one of ${TIERS.join(', ')}; received ${tier}`,
    );
  }
  if (!name.trim()) throw new UserscoutError('invalid_argument', '--name must not be empty');
  const key = newApiKey();
  const id = randomUUID().slice(0, 8);
  await store.createApiKey({
    id,
    name: name.trim(),
    tier: tier as Tier,
    hash: hashApiKey(key),
    createdAt: Date.now(),
  });
  return { id, key };
}

export async function listKeys(store: KeyStore): Promise<string> {
  const keys = await store.listApiKeys();
  if (keys.length === 0) return 'no API keys';
  return keys
    .map(
      (k) =>
        `${k.id}  ${k.tier.padEnd(12)}  ${new Date(k.createdAt).toISOString()}  ${k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : 'active'}  ${k.name}`,
    )
    .join('\n');
}

export async function revokeKey(store: KeyStore & Pick<Store, 'watchlists'>, id: string): Promise<void> {
  if (!(await store.revokeApiKey(id, Date.now()))) {
    throw new UserscoutError('invalid_argument', `no active API key has id ${id} (see: userscout keys list)`);
  }
  // Its watchlists run no more and its pending webhook deliveries are cancelled.
  await store.watchlists.stopOwner(`key:${id}`);
}
