/**
 * Cluster mode as a `ServerLauncher`: one API process and N worker processes
 * (`serve --role api|worker`) sharing a Redis, each a child of its own, under a
 * key prefix of their own that is deleted afterwards. Usage is the sum over
 * the processes, so the cost of the whole deployment is what is reported.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { redisAnswers } from '../src/redis/connection.js';
import { Child } from './child.js';
import type { ProcessUsage } from './process-usage.js';
import type { ServerLauncher } from './server.js';
import type { LoopDelay, ServerInput, ServerReady } from './server-child.js';

/** Where the cluster cases find Redis: REDIS_URL, else the local default. */
export { redisAnswers };

export function benchRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_URL || 'redis://127.0.0.1:6379';
}

/** Deletes every key that starts with `prefix` (BullMQ's included, as it uses the same prefix). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    let cursor = '0';
    for (let round = 0; round < 100_000; round++) {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await client.unlink(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    client.disconnect();
  }
}

/**
 * Commands the Redis at `url` has run since it started (the sum of `calls` in
 * INFO commandstats), without the INFO itself. A difference of two readings is
 * what a piece of work cost Redis, plus whatever else used it meanwhile.
 */
export async function redisCalls(url: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    const info = await client.info('commandstats');
    let calls = 0;
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      if (match[1] !== 'info') calls += Number(match[2]);
    return calls;
  } finally {
    client.disconnect();
  }
}

/** CPU time (ms, user + system) in INFO's `used_cpu_user` and `used_cpu_sys`: the whole Redis server's. */
export function redisCpuMsOf(info: string): number {
  const seconds = (name: string) =>
    Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
}

/** CPU the Redis at `url` has used since it started (ms): a difference of two readings is a piece of work's, plus whatever else used it meanwhile. */
export async function redisCpuMs(url: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    return redisCpuMsOf(await client.info('cpu'));
  } finally {
    client.disconnect();
  }
}

/** Sums the readings of several processes: CPU adds up, and so do peak and current RSS. */
export function sumUsage(readings: readonly ProcessUsage[]): ProcessUsage {
  return {
    userUs: readings.reduce((n, r) => n + r.userUs, 0),
    systemUs: readings.reduce((n, r) => n + r.systemUs, 0),
    maxRssBytes: readings.reduce((n, r) => n + r.maxRssBytes, 0),
    rssBytes: readings.reduce((n, r) => n + r.rssBytes, 0),
    at: Math.max(...readings.map((r) => r.at)),
  };
}

let serial = 0;

/** Loopback source addresses of worker `n` (from 1) with `count` identities: 127.0.0.2 onwards. */
export function workerEgress(n: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `addr:127.0.0.${2 + (n - 1) * count + i}`);
}

/**
 * An API process and `workers` worker processes on the Redis at `redisUrl`;
 * realistic latency. With `identities`, each worker sends from that many
 * loopback addresses of its own (workerEgress); else from the default route.
 */
export function clusterServer(workers: number, redisUrl: string, identities = 0): ServerLauncher {
  return async (ctx, overrides) => {
    const sim = await ctx.sim('builtin', 'realistic');
    const prefix = `userscout-bench-${process.pid}-${++serial}`;
    const input = (role: 'api' | 'worker', n: number): ServerInput => ({
      dataDir: join(ctx.workDir, `cluster-${serial}-${role}-${n}`),
      connectTo: sim.connectTo,
      caFile: sim.caFile,
      overrides: {
        ...overrides,
        redisUrl,
        redisPrefix: prefix,
        role,
        ...(role === 'worker' && identities > 0 ? { egress: workerEgress(n, identities) } : {}),
      },
    });
    const children: Child<ServerReady>[] = [];
    try {
      const api = await Child.start<ServerReady>('./server-child.ts', input('api', 0));
      children.push(api);
      for (let n = 1; n <= workers; n++)
        children.push(await Child.start<ServerReady>('./server-child.ts', input('worker', n)));
      return {
        url: api.ready.url,
        proKey: api.ready.proKey,
        checkers: children.slice(1).map((c) => c.ready.url),
        usage: async () => sumUsage(await Promise.all(children.map((c) => c.usage()))),
        loopDelay: (reset) => api.request<LoopDelay>('loopDelay', reset),
        stop: async () => {
          await Promise.all(children.map((c) => c.stop()));
          await deletePrefix(redisUrl, prefix);
        },
      };
    } catch (error) {
      await Promise.all(children.map((c) => c.stop()));
      await deletePrefix(redisUrl, prefix);
      throw error;
    }
  };
}
