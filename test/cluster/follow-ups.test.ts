/**
 * Recursive searches in cluster mode, where no process serves the answer: an API process queues a
 * recursive search, a worker process runs it on BullMQ and, as it completes,
 * starts its follow-ups itself, under the store lease and the search limit
 * shared in Redis, though no process ever serves the search's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUpId } from '../../src/api/follow-ups.js';
import type { SearchRecord } from '../../src/store/store.js';
import { followUpsCatalogue as catalogue, followUpsSim } from '../support/follow-ups-fixture.js';
import { json, postSearch, type RunningService, startService } from '../support/service.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

describe('recursive searches on the cluster', () => {
  const sim = followUpsSim();
  const prefix = uniquePrefix('follow-ups');
  let api: RunningService;
  let worker: RunningService;

  beforeAll(async () => {
    await sim.start();
    const shared = { redisUrl: TEST_REDIS_URL, redisPrefix: prefix, freeLimit: 10 };
    api = await startService(sim, catalogue, { ...shared, role: 'api' });
    worker = await startService(sim, catalogue, { ...shared, role: 'worker' });
  });
  afterAll(async () => {
    await api?.service.close();
    await worker?.service.close();
    await sim.stop();
    const redis = await connectTestRedis();
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  });

  const storeUntil = async (id: string, ready: (s: SearchRecord) => boolean) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const search = await api.service.store.getSearch(id);
      if (search && ready(search)) return search;
      if (Date.now() > deadline) throw new Error(`search ${id} not ready in 30 s: ${JSON.stringify(search)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('has the worker start them as the search completes, once, with nobody reading it', async () => {
    const started = await postSearch(api.url, { username: 'alice', recursive: true });
    expect(started.status).toBe(200);
    const id = started.body.queryId as string;
    const parent = await storeUntil(id, (s) => s.followUps !== undefined);
    expect(parent.state).toBe('completed');
    expect(parent.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(id, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(id, 'rabbit') },
    ]);
    // The follow-ups run on the cluster like any search, and are never recursive.
    for (const name of ['bob', 'rabbit']) {
      const followUp = await storeUntil(followUpId(id, name), (s) => s.state === 'completed');
      expect(followUp.recursive).toBeUndefined();
    }
    const stored = await api.service.store.listSearchesByClient(parent.client, { limit: 100 });
    expect(stored.map((s) => s.username).sort()).toEqual(['alice', 'bob', 'rabbit']);
    // Counted in the limit every API process shares.
    expect((await json(`${api.url}/api/usage`)).body.searches.used).toBe(3);
  }, 60_000);
});
