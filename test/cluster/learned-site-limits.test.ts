/**
 * A limit one engine learns is used by another: two engines, as two workers of a cluster, share
 * their request budgets and the learned limits through Redis (the store's `siteLimits`). The first meets a site that
 * allows 2 requests a second per address, twice less than our budget; the second, which never
 * met it, then searches the site without a 429.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { RedisRateBudget } from '../../src/redis/rate-budget.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './redis-support.js';

const SITE = 'strict.test';
const catalogue = catalogueOf(
  Array.from({ length: 8 }, (_, i) =>
    entry(`Strict ${i}`, { home: `https://${SITE}/`, profile: `https://${SITE}/p${i}/{username}` }),
  ),
);
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, {
    latency: () => 20,
    rateLimit: () => 2,
    limitAnswer: 'ratelimit',
  }).routes,
});
const prefix = uniquePrefix('learned');
let redis: Redis;
const stores: RedisStore[] = [];
const engines: Engine[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  await sim.prepareTls([SITE]);
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  for (const store of stores) await store.close();
  await deleteKeys(redis, `${prefix}:`);
  await redis.quit();
  await sim.stop();
});

/** An engine of its own (its own copy of the learned limits), on the shared store and budgets, as a worker is. */
function worker(): Engine {
  const store = new RedisStore({ redis, prefix, now: Date.now });
  stores.push(store);
  const engine = engineFor(
    sim,
    catalogue,
    { timeoutMs: 20_000, retryMaxMs: 2_000 },
    { siteLimits: store.siteLimits, rateBudget: new RedisRateBudget({ redis, prefix }) },
  );
  engines.push(engine);
  return engine;
}

async function search(on: Engine, username: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of on.search(username, catalogue.platforms)) outcomes.push(outcome);
  return outcomes;
}

describe('learned site limits across a cluster', () => {
  it('a limit learned by one engine paces the next search of another', async () => {
    const one = worker();
    const two = worker();
    await search(one, 'first');
    const limited = sim.stats().limited.total;
    expect(limited).toBeGreaterThan(0);
    // Kept in Redis, where every process reads it.
    const kept = await stores[0]!.siteLimits.learned(Date.now());
    expect(kept.map((e) => [e.origin, e.limit.perSecond])).toEqual([[SITE, 2]]);

    const outcomes = await search(two, 'second');
    expect(sim.stats().limited.total - limited).toBe(0);
    expect(outcomes.filter((o) => o.status !== 'miss')).toEqual([]);
  }, 60_000);
});
