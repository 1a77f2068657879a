/**
 * Cluster mode on Redis and PostgreSQL for real: two API processes and two
 * workers, a database of the test's own, Redis under a prefix of its own.
 * Searches are made with a professional key; in the middle of the run every
 * key under the prefix is deleted (what a Redis restarted without persistence
 * looks like to the cluster: the queue, limits and cache gone). Every search
 * must still end with exactly the outcomes the simulated web's truth implies,
 * searches that were only queued included (the recovery pass), and the key,
 * a private search, the key's history and a watchlist, kept in PostgreSQL,
 * must still be there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { createTestDatabase } from '../postgres/postgres-support.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, postSearch, tempDir } from '../support/service.js';
import { killHard, startUserscout, type UserscoutProcess, waitFor } from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

const PLATFORMS = 16;
const SEARCHES = 8;
const PRO_KEY = 'usk_pg-recovery-test-professional-key';
const specs = Array.from({ length: PLATFORMS }, (_, i) =>
  entry(`Recovery ${i}`, {
    home: `https://h${i % 4}.recovery.test/`,
    profile: `https://h${i % 4}.recovery.test/p${i}/{username}`,
  }),
);
const catalogue = catalogueOf(specs);
const usernames = Array.from({ length: SEARCHES }, (_, i) => `recovery-user-${i}`);
const platformIndex = new Map(catalogue.platforms.map((p, i) => [p.id, i]));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => usernames.filter((_, u) => (u + platformIndex.get(p.id)!) % 3 === 0),
  // Slow enough that the run is still going when Redis is emptied.
  latency: () => 250,
});
const sim = new SimWeb({ truth: emulation.truth, routes: emulation.routes });
const prefix = uniquePrefix('pgrecovery');
const pro = { 'x-api-key': PRO_KEY };
let redis: Redis;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const processes: UserscoutProcess[] = [];
const started: { queryId: string; username: string }[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  database = await createTestDatabase('cluster');
  await sim.start();
  const dir = tempDir('userscout-pg-cluster-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);

  // The key lives in PostgreSQL (this also migrates the schema).
  const store = new PostgresStore({ url: database.url });
  await store.createApiKey({
    id: 'pro1',
    name: 'recovery test',
    tier: 'professional',
    hash: hashApiKey(PRO_KEY),
    createdAt: Date.now(),
  });
  // A watchlist, not due during the test (a record that must outlive Redis).
  await store.watchlists.createWatchlist({
    id: 'w-kept',
    owner: 'key:pro1',
    createdAt: Date.now(),
    updatedAt: Date.now(),
    spec: { names: ['kept'], intervalMs: 86_400_000, webhookSecret: 'whsec_kept_secret', notify: 'changes' },
    state: { nextRunAt: Date.now() + 86_400_000, runs: 0, baseline: {} },
  });
  await store.close();

  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    USERSCOUT_REDIS_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    USERSCOUT_DATA_DIR: dir,
    USERSCOUT_CATALOGUE: catalogueFile,
    USERSCOUT_CONNECT_TO: sim.connectTo.join(','),
    USERSCOUT_CA_FILE: caFile,
    USERSCOUT_REFUSE_PRIVATE: 'false',
    USERSCOUT_TIMEOUT_MS: '5000',
    USERSCOUT_RETRY_BASE_MS: '20',
    USERSCOUT_RETRY_MAX_MS: '200',
    USERSCOUT_BUDGET_PER_SECOND: '4',
    USERSCOUT_MAX_RUNNING_SEARCHES: '2',
    USERSCOUT_JOB_LOCK_MS: '3000',
    USERSCOUT_LOG_LEVEL: 'info',
  };
  const all = await Promise.allSettled([
    startUserscout('api-1', 'api', env),
    startUserscout('api-2', 'api', env),
    startUserscout('worker-1', 'worker', env),
    startUserscout('worker-2', 'worker', env),
  ]);
  for (const r of all) if (r.status === 'fulfilled') processes.push(r.value);
  const failed = all.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 90_000);

afterAll(async () => {
  await Promise.all(processes.map(killHard));
  await sim.stop();
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
  await database?.drop();
}, 30_000);

describe('cluster mode on Redis and PostgreSQL, Redis emptied mid-run', () => {
  it('ends every search exactly, queued ones included, and the key, history and watchlist still work', async () => {
    const api = processes.slice(0, 2);
    for (const [i, username] of usernames.entries()) {
      // The first search private: readable only with the key, after the loss too.
      const r = await postSearch(api[i % 2]!.url, i === 0 ? { username, private: true } : { username }, pro);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      started.push({ queryId: r.body.queryId, username });
    }
    // Some searches under way, the others still queued (2 workers × 2 at a time).
    await waitFor(
      'a search under way',
      async () => {
        const r = await json(`${api[0]!.url}/api/search?id=${started[0]!.queryId}`, { headers: pro });
        return (r.body?.progress?.checked ?? 0) > 0 ? true : undefined;
      },
      30_000,
      50,
    );
    const deleted = await deleteKeys(redis, `${prefix}:`);
    expect(deleted).toBeGreaterThan(0);

    for (const [i, search] of started.entries()) {
      const r = await waitFor(
        `search ${search.queryId} to finish`,
        async () => {
          const polled = await json(`${api[i % 2]!.url}/api/search?id=${search.queryId}&include=all`, {
            headers: pro,
          });
          // The key is read from PostgreSQL: never a 401 after Redis lost everything.
          expect(polled.status, JSON.stringify(polled.body)).toBe(200);
          return polled.body.status === 'running' ? undefined : polled;
        },
        90_000,
        250,
      );
      expect(r.body.status, JSON.stringify(r.body.error)).toBe('completed');
      const results = r.body.results as { platform: string; platformId: string; status: string }[];
      expect(results).toHaveLength(PLATFORMS);
      expect(new Set(results.map((o) => o.platformId)).size).toBe(PLATFORMS);
      expect(r.body.progress).toMatchObject({ checked: PLATFORMS, total: PLATFORMS });
      const truth = emulation.truth();
      for (const o of results)
        expect(o.status, o.platform).toBe(truth[o.platform]!.includes(search.username) ? 'hit' : 'miss');
    }

    // The key's history, its private search and its watchlist, all read from PostgreSQL.
    const history = await json(`${api[0]!.url}/api/searches?limit=100`, { headers: pro });
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(new Set(history.body.searches.map((s: { queryId: string }) => s.queryId))).toEqual(
      new Set(started.map((s) => s.queryId)),
    );
    const anonymous = await json(`${api[1]!.url}/api/search?id=${started[0]!.queryId}`);
    expect(anonymous.status).toBe(404);
    const kept = await json(`${api[1]!.url}/api/watchlists/w-kept`, { headers: pro });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.names).toEqual(['kept']);

    // A new search with the key after the loss runs too.
    const again = await postSearch(api[1]!.url, { username: usernames[0]! }, pro);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  }, 150_000);
});
