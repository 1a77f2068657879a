/**
 * Cluster mode with two processes that both run the API, searches and the
 * watchlist scheduler, on one Redis: a watchlist that falls due while both
 * are up runs once, with one search per name, whichever process claims it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { createStore } from '../../src/store/create-store.js';
import type { Store } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, tempDir } from '../support/service.js';
import {
  killHard,
  simServeEnv,
  startAll,
  startUserscout,
  type UserscoutProcess,
  waitFor,
} from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

const KEY = 'usk_cluster-watchlist-test-key';
const NAMES = ['alice', 'bob', 'carol'];
const specs = [entry('Alpha'), entry('Bravo'), entry('Charlie')];
const catalogue = catalogueOf(specs);
const sim = new SimWeb({ routes: emulateCatalogue(catalogue.platforms, catalogue.shields).routes });
const prefix = uniquePrefix('watch-cluster');
let redis: Redis;
let store: Store;
const processes: UserscoutProcess[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  const dir = tempDir('userscout-watch-cluster-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  store = createStore({ kind: 'redis', redis, prefix, now: Date.now });
  await store.createApiKey({
    id: 'k1',
    name: 'cluster',
    tier: 'professional',
    hash: hashApiKey(KEY),
    createdAt: Date.now(),
  });
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    USERSCOUT_REDIS_PREFIX: prefix,
    ...simServeEnv({
      dataDir: dir,
      catalogueFile,
      connectTo: sim.connectTo,
      caFile,
      timeoutMs: 3000,
    }),
    USERSCOUT_WATCHLIST_TICK_MS: '20',
  };
  await startAll([startUserscout('one', 'all', env), startUserscout('two', 'all', env)], processes);
}, 90_000);

afterAll(async () => {
  await Promise.all(processes.map(killHard));
  await sim.stop();
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
}, 30_000);

describe('watchlists in cluster mode, 2 processes', () => {
  it('runs a due watchlist once, with one search per name', { timeout: 90_000 }, async () => {
    // Due a moment from now, so both schedulers, polling every 20 ms, meet it at once.
    const dueAt = Date.now() + 1_000;
    await store.watchlists.createWatchlist({
      id: 'w-cluster',
      owner: 'key:k1',
      createdAt: Date.now(),
      updatedAt: Date.now(),
      spec: {
        names: NAMES,
        intervalMs: 3_600_000,
        webhookSecret: 'whsec_cluster_test_secret',
        notify: 'changes',
      },
      state: { nextRunAt: dueAt, runs: 0, baseline: {} },
    });
    const [one] = processes;
    const watchlist = await waitFor(
      'the run',
      async () => {
        const w = (await json(`${one!.url}/api/watchlists/w-cluster`, { headers: { 'x-api-key': KEY } }))
          .body;
        return w.runs >= 1 && !w.running ? w : undefined;
      },
      30_000,
    );
    // Long enough for a second run to have started, had a second process claimed it too.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = (await json(`${one!.url}/api/watchlists/w-cluster`, { headers: { 'x-api-key': KEY } }))
      .body;
    expect(after.runs).toBe(1);
    expect(after.running).toBeUndefined();
    expect(Object.keys(watchlist.lastRun.searches).sort()).toEqual(NAMES);
    const started = processes.flatMap((p) => p.logs.filter((l) => l.msg === 'search started'));
    expect(started).toHaveLength(NAMES.length);
    expect(new Set(started.map((l) => l.queryId))).toEqual(
      new Set(Object.values(watchlist.lastRun.searches)),
    );
  });
});
