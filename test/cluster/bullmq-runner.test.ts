/**
 * The BullMQ runner in one process, on the test Redis: professional searches
 * start first, and a worker that stops cleanly (SIGTERM) hands its search
 * back at once, to be finished by another worker without checking a platform twice;
 * a search cancelled through an API process stops on the worker running it, or
 * leaves the queue.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { bullmqOptions } from '../../src/redis/connection.js';
import { BullMqRunner } from '../../src/runner/bullmq.js';
import { LocalEventHub } from '../../src/runner/events.js';
import { CANCELLED, failSearch, searchJobDeps } from '../../src/runner/search-job.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord, Tier } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';
import { waitFor } from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

// Six platforms on one host, one check at a time: a search takes about 6 × 250 ms.
const catalogue = catalogueOf(
  Array.from({ length: 6 }, (_, i) =>
    entry(`Slow ${i}`, { home: 'https://slow.test/', profile: `https://slow.test/p${i}/{username}` }),
  ),
);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => 250 });
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth });

// Nothing cached: every search checks its platforms.
const jobConfig = loadConfig({ cacheHitSeconds: 0, cacheMissSeconds: 0, cacheOtherSeconds: 0 }, {});

let redis: Redis;
let engine: Engine;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  const caFile = join(tempDir(), 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig(
    { connectTo: sim.connectTo, caFile, refusePrivate: false, perHost: 1, timeoutMs: 5_000 },
    {},
  );
  engine = createEngine(config, catalogue);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await engine?.close();
  await sim.stop();
  await redis?.quit();
});

function setup(label: string) {
  const prefix = uniquePrefix(label);
  const store = createStore({ kind: 'redis', redis, prefix, now: Date.now });
  const deps = searchJobDeps(jobConfig, {
    engine,
    store,
    events: new LocalEventHub(),
    catalogue,
    now: Date.now,
  });
  const runners: BullMqRunner[] = [];
  const starts: { id: string; runner: number }[] = [];
  const runner = (
    work: boolean,
    options: {
      lockMs?: number;
      freeAgingMs?: number;
      afterSearch?: (search: SearchRecord) => Promise<void>;
    } = {},
  ) => {
    const index = runners.length;
    const r = new BullMqRunner(deps, {
      connection: bullmqOptions(TEST_REDIS_URL),
      prefix,
      work,
      concurrency: 1,
      maxQueued: 100,
      retryAfterSeconds: jobConfig.queueFullRetryAfterSeconds,
      lockMs: options.lockMs ?? 30_000,
      freeAgingMs: options.freeAgingMs ?? 60_000,
      onStart: (search) => starts.push({ id: search.id, runner: index }),
      ...(options.afterSearch ? { afterSearch: options.afterSearch } : {}),
    });
    runners.push(r);
    return r;
  };
  cleanups.push(async () => {
    for (const r of runners) await r.stop();
    await deleteKeys(redis, `${prefix}:`);
  });
  let n = 0;
  const search = async (tier: Tier): Promise<SearchRecord> => {
    const record: SearchRecord = {
      id: `${tier}-${++n}`,
      username: 'alice',
      state: 'queued',
      tier,
      client: 'ip:127.0.0.1',
      platformIds: catalogue.platforms.map((p) => p.id),
      estimatedSeconds: 2,
      createdAt: Date.now() + n,
    };
    await store.createSearch(record);
    return record;
  };
  return { store, deps, runner, starts, search };
}

describe('BullMqRunner', () => {
  it('calls afterSearch once a search has run, and again for a job found already completed (a dead worker’s)', async () => {
    const { store, runner, search } = setup('after-search');
    const after: { id: string; state: string | undefined }[] = [];
    const worker = runner(true, {
      afterSearch: async (s) => {
        after.push({ id: s.id, state: (await store.getSearch(s.id))?.state });
      },
    });
    await worker.start();
    const ran = await search('free');
    await worker.enqueue(ran);
    await waitFor('afterSearch of the search run', () => (after.length === 1 ? true : undefined), 20_000, 20);
    expect(after).toEqual([{ id: ran.id, state: 'completed' }]);
    // Its worker died once it was completed, before its job was: the job runs again.
    const finished = await search('free');
    await store.updateSearch(finished.id, { state: 'completed', finishedAt: Date.now() });
    await worker.enqueue(finished);
    await waitFor(
      'afterSearch of the completed one',
      () => (after.length === 2 ? true : undefined),
      20_000,
      20,
    );
    expect(after[1]).toEqual({ id: finished.id, state: 'completed' });
    expect(await store.listOutcomes(finished.id)).toEqual([]);
  }, 40_000);

  it('starts queued professional searches before free ones', async () => {
    const { runner, starts, search } = setup('priority');
    const api = runner(false);
    await api.start();
    for (const tier of ['free', 'free', 'professional', 'free', 'professional'] as const)
      await api.enqueue(await search(tier));
    expect(await api.stats()).toEqual({ queued: 5, running: 0 });
    expect(await api.queuedAhead('professional')).toBe(2);
    expect(await api.queuedAhead('free')).toBe(5);

    await runner(true).start();
    await waitFor('five searches to start', () => (starts.length === 5 ? true : undefined), 30_000);
    expect(starts.map((s) => s.id)).toEqual([
      'professional-3',
      'professional-5',
      'free-1',
      'free-2',
      'free-4',
    ]);
  }, 40_000);

  it('lets a free search that waited long go before professional searches queued after it', async () => {
    const { runner, starts, search } = setup('aging');
    const worker = runner(true, { freeAgingMs: 300 });
    await worker.start();
    await worker.enqueue(await search('professional'));
    await waitFor('the first search to start', () => (starts.length === 1 ? true : undefined), 10_000, 20);
    await worker.enqueue(await search('free'));
    await new Promise((resolve) => setTimeout(resolve, 800));
    await worker.enqueue(await search('professional'));
    await waitFor('three searches to start', () => (starts.length === 3 ? true : undefined), 30_000);
    expect(starts.map((s) => s.id)).toEqual(['professional-1', 'free-2', 'professional-3']);
  }, 40_000);

  it('hands a search back at once when a worker stops, and another worker finishes it', async () => {
    const { store, runner, starts, search } = setup('handover');
    // Locks far longer than the test: only the clean hand-over can make it in time.
    const first = runner(true, { lockMs: 60_000 });
    await first.start();
    const record = await search('free');
    await first.enqueue(record);
    await waitFor(
      'the first worker to be half way',
      async () => {
        const { checked } = await store.progress(record.id);
        return checked > 0 && checked < 6 ? true : undefined;
      },
      10_000,
      20,
    );
    const stoppedAt = Date.now();
    await first.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect((await store.getSearch(record.id))?.state).toBe('running');

    await runner(true, { lockMs: 60_000 }).start();
    await waitFor(
      'the second worker to finish it',
      async () => ((await store.getSearch(record.id))?.state === 'completed' ? true : undefined),
      15_000,
    );
    expect(starts.map((s) => s.runner)).toEqual([0, 1]);
    const outcomes = await store.listOutcomes(record.id);
    expect(outcomes.map((o) => o.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(outcomes.map((o) => o.outcome.platformId)).size).toBe(6);
    // alice has an account on every platform (their known accounts).
    expect(outcomes.map((o) => o.outcome.status)).toEqual(Array(6).fill('hit'));
  }, 40_000);

  it('stops a running search cancelled through another process, keeping what it found', async () => {
    const { store, deps, runner, starts, search } = setup('cancel-running');
    const worker = runner(true);
    const api = runner(false);
    await worker.start();
    await api.start();
    const record = await search('professional');
    await api.enqueue(record);
    await waitFor(
      'the worker to be half way',
      async () => {
        const { checked } = await store.progress(record.id);
        return checked > 0 && checked < 6 ? true : undefined;
      },
      10_000,
      20,
    );
    // What DELETE /api/search/{id} does, on the API process.
    await failSearch(record.id, CANCELLED, deps);
    await api.cancel(record.id);
    // The worker (one search at a time) is free again: the next search starts and finishes.
    const next = await search('professional');
    await api.enqueue(next);
    await waitFor(
      'the next search to finish',
      async () => ((await store.getSearch(next.id))?.state === 'completed' ? true : undefined),
      15_000,
    );
    const cancelled = await store.getSearch(record.id);
    expect(cancelled).toMatchObject({ state: 'error', error: CANCELLED });
    expect((await store.progress(record.id)).checked).toBeLessThan(6);
    expect((await store.progress(record.id)).checked).toBeGreaterThan(0);
    expect(starts.map((s) => s.id)).toEqual([record.id, next.id]);
  }, 40_000);

  it('takes a cancelled search out of the queue before any worker runs it', async () => {
    const { store, deps, runner, starts, search } = setup('cancel-queued');
    const api = runner(false);
    await api.start();
    const record = await search('free');
    await api.enqueue(record);
    await failSearch(record.id, CANCELLED, deps);
    await api.cancel(record.id);
    expect((await api.stats()).queued).toBe(0);
    const worker = runner(true);
    await worker.start();
    const next = await search('free');
    await api.enqueue(next);
    await waitFor(
      'the next search to finish',
      async () => ((await store.getSearch(next.id))?.state === 'completed' ? true : undefined),
      15_000,
    );
    expect(starts.map((s) => s.id)).toEqual([next.id]);
    expect(await store.getSearch(record.id)).toMatchObject({ state: 'error', error: CANCELLED });
    expect((await store.progress(record.id)).checked).toBe(0);
  }, 40_000);
});
