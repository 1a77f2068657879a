/**
 * `npx tsx bench/redis-ops.ts [searches] [workers] [--warm]`: the Redis commands one
 * cluster search costs, for the capacity model in docs/deployment.md. Starts
 * the simulated web (realistic latency) and a cluster (one API process and
 * `workers` workers on the Redis at REDIS_URL), runs `searches` searches at
 * once through the API (polled once a second, as case 3), and prints the
 * commands Redis ran meanwhile (INFO commandstats, around the searches only),
 * in all and by command, per search, the time Redis spent in them, and
 * Redis's own CPU meanwhile (its network work included).
 * `--warm` first runs one search of another username, not counted: what a
 * cluster does once (the vocabulary's texts interned, the controls sent) is
 * then left out, as in a deployment that has run a while.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { API_OVERRIDES, runOneSearch } from './cases/api-searches.js';
import { benchRedisUrl, clusterServer } from './cluster.js';
import { createContext } from './context.js';
import { ACCOUNT_POOL } from './platform-set.js';

/** Redis's own CPU seconds so far (INFO cpu, user + system: its commands and its network work). */
async function redisCpuSeconds(url: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await client.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return field('used_cpu_user') + field('used_cpu_sys');
  } finally {
    client.disconnect();
  }
}

/** Calls and the time Redis spent in them (µs), by command. */
async function commandStats(url: string): Promise<Map<string, { calls: number; usec: number }>> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await client.info('commandstats');
    return new Map(
      [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)].map(
        (m) => [m[1]!, { calls: Number(m[2]), usec: Number(m[3]) }] as const,
      ),
    );
  } finally {
    client.disconnect();
  }
}

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const warm = process.argv.includes('--warm');
const searches = Number(positional[0] ?? 4);
const workers = Number(positional[1] ?? 1);
const url = benchRedisUrl();
const workDir = mkdtempSync(join(tmpdir(), 'userscout-redis-ops-'));
const ctx = createContext({
  quick: true,
  seed: 1,
  serverOverrides: {},
  workDir,
  log: (text) => process.stderr.write(`${text}\n`),
});
try {
  await ctx.sim('builtin', 'realistic');
  const server = await clusterServer(workers, url)(ctx, API_OVERRIDES);
  const pool = new Pool(server.url, { connections: Math.max(4, searches) });
  try {
    if (warm) await runOneSearch(pool, 'warmup', server.proKey, Date.now() + 120_000);
    const before = await commandStats(url);
    const cpuBefore = await redisCpuSeconds(url);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: searches }, (_, i) =>
        runOneSearch(pool, ACCOUNT_POOL[i % ACCOUNT_POOL.length]!, server.proKey, Date.now() + 120_000),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await redisCpuSeconds(url)) - cpuBefore;
    const after = await commandStats(url);
    const done = results.filter((r) => r.finished).length;
    const checks = results.reduce((n, r) => n + r.total, 0);
    const delta = [...after]
      .map(([name, now]) => {
        const was = before.get(name) ?? { calls: 0, usec: 0 };
        return [name, now.calls - was.calls, now.usec - was.usec] as const;
      })
      .filter(([name, calls]) => calls > 0 && name !== 'info')
      .sort((a, b) => b[1] - a[1]);
    const total = delta.reduce((n, [, calls]) => n + calls, 0);
    const usec = delta.reduce((n, [, , us]) => n + us, 0);
    process.stdout.write(
      `${done}/${searches} searches done in ${seconds.toFixed(1)} s, ${workers} worker(s), ${checks} checks${warm ? ', after a warm-up search' : ''}\n` +
        `Redis commands: ${total} in all, ${(total / Math.max(1, done)).toFixed(0)} per search, ${(total / Math.max(1, checks)).toFixed(2)} per check, ${(total / seconds).toFixed(0)} a second\n` +
        `Redis time in commands: ${(usec / 1000 / Math.max(1, done)).toFixed(1)} ms per search\n` +
        `Redis CPU (INFO cpu, commands and network; anything else on that Redis too): ${((cpu * 1000) / Math.max(1, done)).toFixed(1)} ms per search\n` +
        delta
          .map(
            ([name, calls, us]) =>
              `  ${name}: ${(calls / Math.max(1, done)).toFixed(1)} per search, ${(us / Math.max(1, calls)).toFixed(1)} µs each`,
          )
          .join('\n') +
        '\n',
    );
  } finally {
    await pool.close();
    await server.stop();
  }
} finally {
  await ctx.close();
  rmSync(workDir, { recursive: true, force: true });
}
