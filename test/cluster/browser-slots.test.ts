/**
 * The cluster's browser slots on a real Redis: a cap over every holder (two
 * workers' connections), a slot given back when its check ends, one a dead
 * worker held freed when its lease ends, and a browser check that gets no slot
 * within its deadline ending unknown, unsent, with the cap named; while Redis
 * cannot answer, a slot given without asking.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '../../src/engine/transport/browser.js';
import { RedisBrowserSlots } from '../../src/redis/browser-slots.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './redis-support.js';

const prefix = uniquePrefix('browser-slots');
let redis: Redis;
let other: Redis;

beforeAll(async () => {
  redis = await connectTestRedis();
  other = await connectTestRedis();
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  other.disconnect();
});

describe('browser slots in Redis', () => {
  it('gives at most the cap at once over every worker, and a slot back when released', async () => {
    const one = new RedisBrowserSlots({ redis, prefix: `${prefix}:a`, cap: 2 });
    const two = new RedisBrowserSlots({ redis: other, prefix: `${prefix}:a`, cap: 2 });
    const first = await one.tryTake(60_000);
    const second = await two.tryTake(60_000);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(await one.tryTake(60_000)).toBeUndefined();
    expect(await two.tryTake(60_000)).toBeUndefined();
    first!();
    await expect.poll(() => one.held()).toBe(1);
    const third = await two.tryTake(60_000);
    expect(third).toBeTypeOf('function');
    second!();
    third!();
    await expect.poll(() => one.held()).toBe(0);
  });

  it('frees a slot whose holder died when its lease ends', async () => {
    const slots = new RedisBrowserSlots({ redis, prefix: `${prefix}:b`, cap: 1 });
    // Taken and never given back: a worker killed during its check.
    expect(await slots.tryTake(300)).toBeTypeOf('function');
    expect(await slots.tryTake(300)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await slots.tryTake(300)).toBeTypeOf('function');
    // The key itself expires once no lease is left.
    expect(await redis.pttl(`${prefix}:b:browser-slots`)).toBeGreaterThan(0);
  });

  it("gives a slot without asking while Redis cannot answer, telling why: each process's own cap still holds", async () => {
    const away = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const errors: unknown[] = [];
    const slots = new RedisBrowserSlots({
      redis: away,
      prefix: `${prefix}:d`,
      cap: 1,
      onError: (e) => errors.push(e),
    });
    try {
      const first = await slots.tryTake(1_000);
      const second = await slots.tryTake(1_000);
      expect(first).toBeTypeOf('function');
      expect(second).toBeTypeOf('function');
      first!();
      expect(errors.length).toBeGreaterThanOrEqual(2);
    } finally {
      away.disconnect();
    }
  });

  it.runIf(findBrowser('') !== undefined)(
    'ends a browser check unknown, budget_exhausted, when the cluster has no slot for it within its deadline',
    async () => {
      const sim = new SimWeb({
        routes: [{ host: 'plain.test', handle: () => ({ kind: 'respond', status: 200, body: 'alice' }) }],
      });
      await sim.start();
      const catalogue = catalogueOf([
        entry('plain by browser', {
          home: 'https://plain.test/',
          profile: 'https://plain.test/u/{username}',
          transport: 'browser',
        }),
      ]);
      const slots = new RedisBrowserSlots({ redis, prefix: `${prefix}:c`, cap: 1 });
      // Another worker's check holds the cluster's only slot.
      const held = await slots.tryTake(60_000);
      const engine = engineFor(
        sim,
        catalogue,
        { insecureTls: true, timeoutMs: 1500, browserChecksAtOnce: 1 },
        { browserSlots: slots },
      );
      try {
        const outcome = await engine.check(catalogue.platforms[0]!, 'alice');
        expect(outcome).toMatchObject({
          status: 'unknown',
          reason: 'budget_exhausted',
          evidence: { attempts: 0 },
        });
        expect(outcome.evidence.rule).toMatch(/no browser slot .* 1 in the cluster/);
        expect(sim.hits.get('plain.test') ?? 0).toBe(0);
        held!();
      } finally {
        await engine.close();
        await sim.stop();
      }
    },
    30_000,
  );
});
