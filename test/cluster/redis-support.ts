/**
 * The Redis the cluster tests use (CI starts one on 127.0.0.1:6379), a key
 * prefix unique to each test run, and cleanup of everything under a prefix.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.USERSCOUT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniquePrefix(label: string): string {
  return `ustest-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** A ready connection; fails with a clear message when no Redis answers. */
export async function connectTestRedis(): Promise<Redis> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `The cluster tests need Redis at ${TEST_REDIS_URL} (.ci/run starts one): ${(error as Error).message}`,
    );
  }
  return client;
}

/** Deletes every key under `prefix` (bounded SCAN). */
export async function deleteKeys(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  for (let round = 0; round < 100_000; round++) {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) deleted += await client.del(...keys);
    cursor = next;
    if (cursor === '0') break;
  }
  return deleted;
}
