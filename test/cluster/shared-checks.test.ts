/**
 * What workers share through Redis below the search level: identical checks
 * at the same time go out once, and one request budget per origin holds across
 * engines.
 * Two engines in this process stand for two workers (the multi-process test
 * does it with real processes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { RedisRateBudget } from '../../src/redis/rate-budget.js';
import { RedisSharedChecks } from '../../src/redis/shared-checks.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { busiestWindow } from '../../src/sim/site-limits.js';
import { budgetAllows, watchingStalls } from '../support/budget-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './redis-support.js';

const catalogue = catalogueOf(
  Array.from({ length: 8 }, (_, i) =>
    entry(`Shared ${i}`, { home: 'https://shared.test/', profile: `https://shared.test/p${i}/{username}` }),
  ),
);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => 150 });
// Every platform is on one host; the simulated web logs when each request reaches it.
const sim = new SimWeb({ truth: emulation.truth, routes: emulation.routes, logRequests: true });
const BUDGET = { perSecond: 4, burst: 2 };

const prefix = uniquePrefix('shared');
let redis: Redis;
let engines: Engine[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  const caFile = join(tempDir(), 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  // Each engine alone would send BUDGET a second to the host; together they may too.
  const config = loadConfig(
    {
      connectTo: sim.connectTo,
      caFile,
      refusePrivate: false,
      perHost: 2,
      budgetPerSecond: BUDGET.perSecond,
      budgetBurst: BUDGET.burst,
      // No control checks: this counts the checks' own requests (controls: controls.test.ts).
      controlWindowMs: 0,
    },
    {},
  );
  engines = [0, 1].map(() =>
    createEngine(config, catalogue, {
      rateBudget: new RedisRateBudget({ redis, prefix }),
      sharedChecks: new RedisSharedChecks({ redis, prefix, leaseMs: 15_000, maxWaitMs: 15_000 }),
    }),
  );
});

afterAll(async () => {
  for (const engine of engines) await engine.close();
  await sim.stop();
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
});

async function collect(engine: Engine, username: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of engine.search(username, catalogue.platforms)) outcomes.push(outcome);
  return outcomes;
}

describe('checks shared between workers', () => {
  it('sends identical checks at the same time once, and both get the outcome', async () => {
    const before = sim.requestCount;
    const [a, b] = await Promise.all([collect(engines[0]!, 'alice'), collect(engines[1]!, 'alice')]);
    expect(sim.requestCount - before).toBe(catalogue.platforms.length);
    const byId = (list: Outcome[]) => new Map(list.map((o) => [o.platformId, o]));
    expect(byId(a)).toEqual(byId(b));
    expect(a.every((o) => o.status === 'hit')).toBe(true);
  });

  it('checks again once the shared check is over (sharing is not a cache)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = sim.requestCount;
    await collect(engines[0]!, 'alice');
    expect(sim.requestCount - before).toBe(catalogue.platforms.length);
  });

  it('holds the request budget of the host over both engines', async () => {
    const from = sim.siteLog.length;
    const {
      result: [a, b],
      lateMs,
    } = await watchingStalls(() => Promise.all([collect(engines[0]!, 'bob'), collect(engines[1]!, 'carol')]));
    expect(a).toHaveLength(8);
    expect(b).toHaveLength(8);
    const log = sim.siteLog.slice(from);
    expect(log).toHaveLength(16);
    // Each engine alone sends 8 in 1.5 s: both at their own pace would put 12 in one second.
    // The shared budget's slots allow 5 in a second; 7 counting LATE_MS (more if this thread stalled).
    expect(busiestWindow(log, 1000).get('shared.test 127.0.0.1')).toBeLessThanOrEqual(
      budgetAllows(BUDGET, 1000, lateMs),
    );
  });
});
