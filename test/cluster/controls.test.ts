/**
 * Control checks across workers, so adding workers adds no requests to a site:
 * two engines sharing one Redis store
 * stand for two workers. However many searches both run, each platform's
 * control goes out once per window, and a drift one worker found holds for the
 * other's hits too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import type { SimRoute } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { createStore } from '../../src/store/create-store.js';
import type { Store } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './redis-support.js';

const catalogue = catalogueOf([entry('Alpha'), entry('Bravo'), entry('Mirror')]);
const NAMES = ['alice', 'sam', 'ann', 'bob', 'eve', 'joe'];
const seen: { host: string; path: string }[] = [];
const recorder: SimRoute = {
  host: /.*/,
  handle: (req) => {
    seen.push({ host: req.host, path: req.path });
    return undefined;
  },
};
const sim = new SimWeb({
  routes: [
    recorder,
    ...emulateCatalogue(catalogue.platforms, catalogue.shields, {
      accounts: () => NAMES,
      latency: () => 30,
      // Mirror now answers every name with a profile.
      override: (p) => (p.name === 'Mirror' ? { kind: 'respond', status: 200, body: 'profile' } : undefined),
    }).routes,
  ],
});
const prefix = uniquePrefix('controls');
let redis: Redis;
let stores: Store[] = [];
let engines: Engine[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  const caFile = join(tempDir(), 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig({ connectTo: sim.connectTo, caFile, refusePrivate: false, timeoutMs: 5000 }, {});
  stores = [0, 1].map(() => createStore({ kind: 'redis', redis, prefix, now: Date.now }));
  engines = stores.map((store) => createEngine(config, catalogue, { controls: store }));
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

describe('control checks across two workers', () => {
  it('sends each platform one control per window, and shares the drift it finds', async () => {
    const runs = await Promise.all(NAMES.flatMap((name) => engines.map((engine) => collect(engine, name))));
    for (const outcomes of runs) {
      const by = new Map(outcomes.map((o) => [o.platform, o]));
      expect(by.get('Alpha')!.status).toBe('hit');
      expect(by.get('Bravo')!.status).toBe('hit');
      expect(by.get('Mirror')).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
    }
    for (const host of ['alpha.test', 'bravo.test', 'mirror.test']) {
      const controls = seen.filter((r) => r.host === host && !NAMES.some((n) => r.path === `/u/${n}`));
      expect(controls, host).toHaveLength(1);
    }
    const records = await stores[0]!.listControls();
    expect(records.map((r) => [r.platformId, r.drift])).toEqual([
      ['alpha', false],
      ['bravo', false],
      ['mirror', true],
    ]);
  }, 60_000);
});
