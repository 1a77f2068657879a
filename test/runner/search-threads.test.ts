/**
 * Several search threads: searches run at once go to different threads, and
 * the threads together keep each site's request budget per source address,
 * as the simulated web's request log sees it (one budget, not one per thread).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LocalEventHub } from '../../src/runner/events.js';
import { SearchThreads } from '../../src/runner/search-threads.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { busiestWindow } from '../../src/sim/site-limits.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord } from '../../src/store/store.js';
import { budgetAllows, watchingStalls } from '../support/budget-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';

/** Platforms on one host: one site, one budget per source address. */
const ON_ONE_SITE = 12;
const catalogue = catalogueOf(
  Array.from({ length: ON_ONE_SITE }, (_, i) =>
    entry(`Busy ${i}`, { home: 'https://busy.test/', profile: `https://busy.test/p${i}/{username}` }),
  ),
);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => 5 });
const sim = new SimWeb({ routes: emulation.routes, logRequests: true });

beforeAll(async () => {
  await sim.start();
  await sim.prepareTls(['busy.test']);
});
afterAll(async () => {
  await sim.stop();
});

describe('SearchThreads', () => {
  it('runs searches at once on two threads that together keep one site’s budget', async () => {
    const dataDir = tempDir();
    const caFile = join(dataDir, 'ca.pem');
    writeFileSync(caFile, sim.caCert);
    const config = loadConfig(
      // No control checks: the log then holds the checks' own requests only.
      {
        dataDir,
        connectTo: sim.connectTo,
        caFile,
        refusePrivate: false,
        timeoutMs: 20_000,
        retries: 0,
        controlWindowMs: 0,
      },
      {},
    );
    const databasePath = join(dataDir, 'userscout.db');
    const store = createStore({ kind: 'sqlite', path: databasePath });
    const threads = new SearchThreads(
      { config, catalogue, databasePath },
      { events: new LocalEventHub() },
      2,
    );
    try {
      await threads.start();
      const searches: SearchRecord[] = ['sam', 'kim'].map((username) => ({
        id: `threads-${username}`,
        username,
        state: 'queued',
        tier: 'free',
        client: 'ip:127.0.0.1',
        platformIds: catalogue.platforms.map((p) => p.id),
        estimatedSeconds: 2,
        createdAt: Date.now(),
      }));
      for (const search of searches) await store.createSearch(search);
      const from = sim.siteLog.length;
      const { lateMs } = await watchingStalls(() =>
        Promise.all(searches.map((search) => threads.execute(search, new AbortController().signal))),
      );
      for (const search of searches) {
        expect((await store.getSearch(search.id))?.state).toBe('completed');
        expect(await store.listOutcomes(search.id)).toHaveLength(ON_ONE_SITE);
      }
      const log = sim.siteLog.slice(from);
      expect(log).toHaveLength(2 * ON_ONE_SITE);
      const limit = { perSecond: config.budgetPerSecond, burst: config.budgetBurst };
      // One budget: 24 requests take (24 - burst) / perSecond s; a budget per thread sends twice as many in a window.
      expect(busiestWindow(log, 2000).get('busy.test 127.0.0.1')).toBeLessThanOrEqual(
        budgetAllows(limit, 2000, lateMs),
      );
    } finally {
      await threads.close();
      await store.close();
    }
  }, 60_000);
});
