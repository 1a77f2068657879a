/**
 * Redis connections of cluster mode. Connections that serve requests never
 * wait for Redis: without an offline queue a command fails at once while Redis
 * is unreachable, and `commandTimeout` bounds one that got no answer. ioredis
 * keeps reconnecting in the background, so work resumes when Redis is back.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { REDIS_COMMAND_TIMEOUT_MS } from '../tuning.js';

/** Options for command connections (store, events, rate limits, request budgets). */
function commandOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    // Reconnect forever, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
}

/** Options for BullMQ: it waits for Redis itself (its Worker needs `maxRetriesPerRequest: null`). */
export function bullmqOptions(url: string): {
  url: string;
  connectTimeout: number;
  retryStrategy: (times: number) => number;
} {
  return {
    url,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
}

/**
 * A command connection to `url`. Connection errors go to `onError` (ioredis
 * would print them otherwise); commands report them too.
 */
export function createRedisClient(
  url: string,
  onError: (error: Error) => void = () => {},
  options: RedisOptions = {},
): Redis {
  const client = new Redis(url, { ...commandOptions(), ...options });
  client.on('error', onError);
  return client;
}

/** Resolves when the connection is ready, or rejects after `timeoutMs`. */
export async function waitUntilReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}

/** Closes a connection whether or not Redis answers. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}

/** Whether a Redis answers PING at `url` within `timeoutMs` (a probe: one connection, no retries). */
export async function redisAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
