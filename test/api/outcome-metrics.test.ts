/**
 * A search's outcomes in the embedded service's /metrics as soon as the search reads
 * completed: the search thread counts each outcome in memory the main thread's /metrics
 * reads, before it stores it, so no count waits for a message the store does not wait for.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum } from '../../bench/prometheus.js';
import type { Platform } from '../../src/catalogue/platform.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { injectService, json, metricsText, postSearch, type RunningService } from '../support/service.js';

// Enough platforms for several batches of outcomes; Strict takes digits only, so its
// outcome for a name of letters is invalid (nothing sent, nothing timed).
const catalogue = catalogueOf([
  ...Array.from({ length: 24 }, (_, i) => entry(`Site ${i}`)),
  entry('Strict', {
    username: { pattern: '^[0-9]+$' },
    known: { claimed: ['123'], unclaimed: ['987'] },
  }),
]);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p: Platform) => (p.name.endsWith('0') ? ['sam', ...p.known.claimed] : p.known.claimed),
});
const sim = new SimWeb({ routes: emulation.routes });

interface Result {
  readonly status: string;
  readonly evidence?: { readonly cachedAt?: number; readonly httpStatus?: number };
}

/**
 * Polls until the search reads finished, `pausing` between polls or not at all: without a
 * pause, the main thread handles no message from the search thread from the first poll to
 * the scrape that follows the last (nor answers as the simulated web: only for a search
 * that sends nothing).
 */
async function untilFinished(url: string, id: string, pausing: boolean): Promise<readonly Result[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await json(`${url}/api/search?id=${id}&include=all`);
    expect(r.status).toBe(200);
    if (r.body.status !== 'running') {
      expect(r.body.status).toBe('completed');
      return r.body.results;
    }
    if (Date.now() > deadline) throw new Error(`search ${id} still running`);
    if (pausing) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('outcomes in /metrics', () => {
  let running: RunningService;

  beforeAll(async () => {
    await sim.start();
    // Polled without a pause: no read limit in the way.
    running = await injectService(sim, catalogue, { searchThread: true, readLimit: 10_000_000 });
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('are all counted in the first scrape after the search reads completed', async () => {
    const outcomes: Result[] = [];
    // The second search of the name sends nothing: its outcomes are the first's, from the
    // cache (counted, not timed), and the invalid one; so it is polled without a pause.
    for (const pausing of [true, false]) {
      const started = await postSearch(running.url, { username: 'sam' });
      expect(started.status).toBe(200);
      const results = await untilFinished(running.url, started.body.queryId, pausing);
      if (!pausing)
        expect(results.filter((o) => o.status !== 'invalid' && o.evidence?.cachedAt === undefined)).toEqual(
          [],
        );
      outcomes.push(...results);
      const text = await metricsText(running.url);
      expect(metricSum(text, 'userscout_checks_total')).toBe(outcomes.length);
      const timed = outcomes.filter((o) => o.status !== 'invalid' && o.evidence?.cachedAt === undefined);
      expect(metricSum(text, 'userscout_check_duration_seconds_count')).toBe(timed.length);
      expect(metricSum(text, 'userscout_check_duration_seconds_bucket', { le: '+Inf' })).toBe(timed.length);
      // A transport is counted for an answer: a check that timed out on a busy machine has none.
      const answered = timed.filter((o) => o.evidence?.httpStatus !== undefined);
      expect(metricSum(text, 'userscout_transport_checks_total', { transport: 'http' })).toBe(
        answered.length,
      );
      expect(metricSum(text, 'userscout_checks_total', { status: 'invalid', reason: 'username_rule' })).toBe(
        outcomes.filter((o) => o.status === 'invalid').length,
      );
    }
    expect(outcomes.filter((o) => o.status === 'hit')).toHaveLength(6);
  }, 60_000);
});
