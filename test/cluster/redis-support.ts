/**
 * The Redis the cluster tests use (CI starts one on 127.0.0.1:6379), a key
 * prefix unique to each test run, and cleanup of everything under a prefix;
 * and a redis-server of a test's own, for tests that stop Redis for real.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { redisAnswers } from '../../src/redis/connection.js';
import { waitFor } from './processes.js';

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

/** A redis-server of a test's own, on a port of its own, that the test stops and starts again. */
export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Starts an empty redis-server on the port (no persistence) and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it with `signal` (SIGKILL: the harsh case) and waits until it is gone; a no-op when stopped. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A port for a redis-server of the test's own; nothing runs on it until `start()`. */
export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  // Its working directory: nothing is written there (no RDB, no AOF), and never into the repository.
  const dir = mkdtempSync(join(tmpdir(), 'userscout-redis-'));
  let child: ChildProcess | undefined;

  const answers = () => redisAnswers(url, 500);

  return {
    port,
    url,
    async start() {
      if (child) throw new Error('own redis-server already started');
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      child = started;
      let failure: Error | undefined;
      started.on('error', (error) => {
        failure = error;
      });
      await waitFor(
        `redis-server on port ${port} to answer`,
        async () => {
          if (failure) throw new Error(`redis-server could not start: ${failure.message}`);
          if (started.exitCode !== null)
            throw new Error(`redis-server exited with ${started.exitCode} (port ${port} taken?)`);
          return (await answers()) ? true : undefined;
        },
        10_000,
        50,
      );
    },
    async stop(signal = 'SIGKILL') {
      const stopping = child;
      child = undefined;
      if (!stopping || stopping.exitCode !== null || stopping.signalCode !== null) return;
      const gone = new Promise((resolve) => stopping.once('exit', resolve));
      stopping.kill(signal);
      await withTimeout(gone, 10_000, `redis-server on port ${port} to exit after ${signal}`);
    },
  };
}

async function withTimeout<T>(work: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${limitMs} ms waiting for ${what}`)),
          limitMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
