/**
 * Cluster mode for real: two API processes and two workers, each a separate
 * OS process, sharing the test Redis under a prefix of their own, checking
 * platforms on the simulated web (run in this process). Twenty searches are
 * spread over both API processes; one worker is killed with SIGKILL in the
 * middle of a search; every search must still end with exactly the outcomes
 * the simulated web's truth implies, none counted twice. The free limit holds
 * across both API processes, live events reach a client of the other API
 * process, and each host's request budget holds across both workers (the
 * simulated web's log of arrivals never shows more in a second than it allows).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { busiestWindow } from '../../src/sim/site-limits.js';
import { createStore } from '../../src/store/create-store.js';
import { budgetAllows, lateAfterStall } from '../support/budget-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { countInFlight } from '../support/in-flight.js';
import { json, postSearch, readEvents, tempDir } from '../support/service.js';
import {
  CLUSTER_METRICS_HEADERS,
  killHard,
  simServeEnv,
  startAll,
  startUserscout,
  type UserscoutProcess,
  waitFor,
} from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

const HOSTS = 6;
const PLATFORMS = 36;
const PER_HOST = 2;
// Requests a second to one host over the cluster, after a burst: below what both workers'
// in-flight limits would send (2 × PER_HOST per LATENCY_MS), and below one worker's alone, so
// the shared budget is what bounds the pace; the faster it is, the sooner the searches end.
const BUDGET = { perSecond: 8, burst: 2 };
const SITE_LIMIT = Math.max(BUDGET.perSecond, BUDGET.burst) + 1;
const LATENCY_MS = 120;
const FREE_LIMIT = 10;
const SEARCHES = 20;
const PRO_KEY = 'usk_cluster-test-professional-key';

const specs = Array.from({ length: PLATFORMS }, (_, i) =>
  entry(`Cluster ${i}`, {
    // Several platforms per host, so the per-host limit is what bounds the pace.
    home: `https://h${i % HOSTS}.cluster.test/`,
    profile: `https://h${i % HOSTS}.cluster.test/p${i}/{username}`,
  }),
);
const catalogue = catalogueOf(specs);
const usernames = Array.from({ length: SEARCHES + 2 }, (_, i) => `cluster-user-${i}`);
const platformIndex = new Map(catalogue.platforms.map((p, i) => [p.id, i]));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  // Each user has an account on every third platform, a different third per user.
  accounts: (p) => usernames.filter((_, u) => (u + platformIndex.get(p.id)!) % 3 === 0),
  latency: () => LATENCY_MS,
  // Each site rate-limits each client address (429 beyond it), one token above the budget.
  rateLimit: () => SITE_LIMIT,
});

// Requests in flight per host, as the simulated web sees them; it logs every request.
const inFlight = countInFlight(emulation.routes);
const sim = new SimWeb({ truth: emulation.truth, routes: inFlight.routes, logRequests: true });
// The simulated web logs a request when its event loop (this process's) gets to it: its worst
// stall is how much later than its arrival a request may be logged.
const simStall = monitorEventLoopDelay({ resolution: 10 });

const prefix = uniquePrefix('cluster');
let redis: Redis;
const processes: UserscoutProcess[] = [];
let api: UserscoutProcess[] = [];
let workers: UserscoutProcess[] = [];

interface Started {
  readonly queryId: string;
  readonly username: string;
  readonly via: number;
}
const started: Started[] = [];
let killedSearch: string | undefined;
let stream: Promise<string>;

beforeAll(async () => {
  redis = await connectTestRedis();
  simStall.enable();
  await sim.start();
  const dir = tempDir('userscout-cluster-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);

  // Keys live in Redis, where every API process finds them.
  const store = createStore({ kind: 'redis', redis, prefix, now: Date.now });
  await store.createApiKey({
    id: 'pro1',
    name: 'cluster test',
    tier: 'professional',
    hash: hashApiKey(PRO_KEY),
    createdAt: Date.now(),
  });
  await store.close();

  const env = {
    REDIS_URL: TEST_REDIS_URL,
    USERSCOUT_REDIS_PREFIX: prefix,
    ...simServeEnv({
      dataDir: dir,
      catalogueFile,
      connectTo: sim.connectTo,
      caFile,
      timeoutMs: 5000,
    }),
    USERSCOUT_RETRY_BASE_MS: '20',
    USERSCOUT_RETRY_MAX_MS: '200',
    USERSCOUT_PER_HOST: String(PER_HOST),
    USERSCOUT_BUDGET_PER_SECOND: String(BUDGET.perSecond),
    USERSCOUT_BUDGET_BURST: String(BUDGET.burst),
    USERSCOUT_MAX_RUNNING_SEARCHES: '3',
    USERSCOUT_JOB_LOCK_MS: '3000',
    USERSCOUT_FREE_LIMIT: String(FREE_LIMIT),
  };
  await startAll(
    [
      startUserscout('api-1', 'api', env),
      startUserscout('api-2', 'api', env),
      startUserscout('worker-1', 'worker', env),
      startUserscout('worker-2', 'worker', env),
    ],
    processes,
  );
  api = processes.slice(0, 2);
  workers = processes.slice(2);
}, 90_000);

afterAll(async () => {
  await Promise.all(processes.map(killHard));
  await sim.stop();
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
}, 30_000);

const pro = { 'x-api-key': PRO_KEY };
const expectedStatus = (platformName: string, username: string) =>
  emulation.truth()[platformName]!.includes(username) ? 'hit' : 'miss';

describe('cluster mode: 2 API processes, 2 workers, one Redis', () => {
  it('takes 20 searches over both API processes and holds the free limit across them', async () => {
    for (let i = 0; i < SEARCHES; i++) {
      const via = i % 2;
      const username = usernames[i]!;
      // Even-numbered pairs free, odd-numbered professional: both tiers on both processes.
      const headers = Math.floor(i / 2) % 2 === 0 ? {} : pro;
      const r = await postSearch(api[via]!.url, { username }, headers);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ status: 'running', totalPlatforms: PLATFORMS });
      started.push({ queryId: r.body.queryId, username, via });
    }
    // Ten free searches were made, five on each process: the eleventh is refused on either.
    for (const via of [0, 1]) {
      const refused = await postSearch(api[via]!.url, { username: usernames[SEARCHES + via]! });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // A professional key is past that point.
    const proOk = await json(`${api[1]!.url}/api/search?id=${started[2]!.queryId}`, { headers: pro });
    expect(proOk.status).toBe(200);

    // Live events of the last search (started through api-2, still queued) are read on api-1.
    expect(started[SEARCHES - 1]!.via).toBe(1);
    stream = readEvents(`${api[0]!.url}/api/search/${started[SEARCHES - 1]!.queryId}/events`, 90_000);
    stream.catch(() => {}); // awaited in its own test
  });

  it('survives a worker killed with SIGKILL in the middle of a search', async () => {
    const victim = workers[0]!;
    killedSearch = await waitFor(
      'a search half done on worker-1',
      async () => {
        // The least advanced of its running searches, and at most half done, so the kill lands
        // well before that search could finish on its own.
        let chosen: { id: string; checked: number } | undefined;
        for (const line of victim.logs.filter((l) => l.msg === 'search job started')) {
          const r = await json(`${api[0]!.url}/api/search?id=${String(line.queryId)}`, { headers: pro });
          const checked = r.body?.progress?.checked ?? 0;
          if (r.body.status === 'running' && checked > 0 && checked <= PLATFORMS / 2)
            if (!chosen || checked < chosen.checked) chosen = { id: String(line.queryId), checked };
        }
        return chosen?.id;
      },
      30_000,
      50,
    );
    await killHard(victim);
    expect(victim.child.signalCode).toBe('SIGKILL');

    // Every search completes, through either API process, within a bounded time.
    for (const [i, search] of started.entries()) {
      const r = await waitFor(
        `search ${search.queryId} to finish`,
        async () => {
          const polled = await json(`${api[i % 2]!.url}/api/search?id=${search.queryId}&include=all`, {
            headers: pro,
          });
          return polled.body.status === 'running' ? undefined : polled;
        },
        60_000,
        200,
      );
      expect(r.body.status, JSON.stringify(r.body.error)).toBe('completed');
      const results = r.body.results as { platform: string; platformId: string; status: string }[];
      // Exactly one outcome per platform, each the one the simulated web's truth implies.
      expect(results).toHaveLength(PLATFORMS);
      expect(new Set(results.map((o) => o.platformId)).size).toBe(PLATFORMS);
      expect(r.body.progress).toMatchObject({ checked: PLATFORMS, total: PLATFORMS });
      for (const o of results) expect(o.status, o.platform).toBe(expectedStatus(o.platform, search.username));
    }

    // The killed worker's search was taken over by the other worker and resumed, not restarted.
    const survivor = workers[1]!;
    expect(survivor.logs.some((l) => l.msg === 'search job started' && l.queryId === killedSearch)).toBe(
      true,
    );
    const events = await json(`${api[1]!.url}/api/search?id=${killedSearch}&include=all`, { headers: pro });
    expect(events.body.results).toHaveLength(PLATFORMS);
  }, 120_000);

  it('streamed every event of a search to a client of the other API process, in order', async () => {
    const text = await stream;
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: PLATFORMS }, (_, i) => i + 1));
    expect(text).toMatch(/event: done\ndata: \{"status":"completed"\}/);
  });

  it('held each site\u2019s request budget across both workers, and met no 429', () => {
    expect(sim.siteLog.length).toBeGreaterThanOrEqual(SEARCHES * PLATFORMS);
    expect(sim.stats().limited.total).toBe(0);
    // Each worker alone would send up to PER_HOST per LATENCY_MS (16 a second) to a site, twice
    // that together. Read over 5 s, as a site's 15 s of traffic allows: the lateness a loaded
    // machine adds (LATE_MS, and the simulated web's worst stall for each turn a request waits)
    // shifts a window's count once, so over a long window it cannot hide a worker that ignores the
    // shared budget (83 in 5 s), as it could over one second.
    simStall.disable();
    const windowMs = 5000;
    const allowed = budgetAllows(BUDGET, windowMs, lateAfterStall(simStall.max));
    const most = busiestWindow(sim.siteLog, windowMs);
    expect(most.size).toBe(HOSTS);
    for (const [key, n] of most) expect(n, key).toBeLessThanOrEqual(allowed);
    // The in-flight limit is each worker's own.
    expect(inFlight.most()).toBeLessThanOrEqual(2 * PER_HOST);
  });

  it('left no job behind in the queue', async () => {
    // A job completes just after its search is stored as completed: allow a moment.
    const metrics = await waitFor(
      'an empty queue',
      async () => {
        const r = await json(`${api[0]!.url}/metrics`, { headers: CLUSTER_METRICS_HEADERS });
        expect(r.status).toBe(200);
        const text = String(r.body);
        return /^userscout_running_searches 0$/m.test(text) ? text : undefined;
      },
      10_000,
      200,
    );
    expect(metrics).toMatch(/^userscout_queue_depth 0$/m);
  });
});
