/**
 * Politeness as the simulated web sees it: sites that rate-limit each client
 * address (429 beyond N requests a second) and log every request. Many searches
 * at once stay within the request budget and meet no 429; two source addresses
 * share the load, each within its budget; a check whose budget has no slot in
 * time ends as unknown/budget_exhausted and is never sent.
 */

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.js';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/outcome.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { CONTROL_HOST, SimWeb } from '../src/sim/server.js';
import { busiestWindow, refusedUnder, SITE_LIMIT_RANGE, siteLimit } from '../src/sim/site-limits.js';
import { catalogueOf, entry } from './support/catalogue.js';
import { engineFor } from './support/engine.js';

const SHARED = 3;
/** A platform on plain HTTP: connection set-up (a TLS handshake costs tens of ms of CPU on a busy
 * machine, more for the first ones) would otherwise blur when requests sent on time arrive. */
const plain = (name: string, host = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.test`, path = 'u') =>
  entry(name, { home: `http://${host}/`, profile: `http://${host}/${path}/{username}` });
const catalogue = catalogueOf([
  ...Array.from({ length: 8 }, (_, i) => plain(`Own ${i}`)),
  // Several platforms on one host: one site, one budget.
  ...Array.from({ length: SHARED }, (_, i) => plain(`Shared ${i}`, 'shared.test', `p${i}`)),
  { ...plain('Strict'), budget: { perSecond: 0.5 } },
]);
const strict = catalogue.platforms.find((p) => p.id === 'strict')!;
const relaxed = catalogue.platforms.filter((p) => p !== strict);
// Every site as strict as the simulated web's seeding ever makes one (the strict platform, by its budget).
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  latency: () => 30,
  rateLimit: (p) => (p.budget ? siteLimit(p, 1) : SITE_LIMIT_RANGE.min),
});
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth, logRequests: true });
const budget = { perSecond: SETTINGS.budgetPerSecond.default, burst: SETTINGS.budgetBurst.default };
const engines: Engine[] = [];

beforeAll(async () => {
  await sim.start();
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await sim.stop();
});

function engine(overrides: Parameters<typeof engineFor>[2] = {}): Engine {
  const made = engineFor(sim, catalogue, { timeoutMs: 20_000, retries: 0, ...overrides });
  engines.push(made);
  return made;
}

async function search(on: Engine, username: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of on.search(username, relaxed)) outcomes.push(outcome);
  return outcomes;
}

/** The simulated web's log since `from`: the most requests one address sent one site within a second. */
function busiest(from: number) {
  return busiestWindow(sim.siteLog.slice(from), 1000);
}

/**
 * Requests in the log since `from` that a site limiting each address to exactly the
 * budget's rate would refuse, by site and address. Its burst is one above the
 * budget's: a request sent on time can arrive together with an earlier one that the
 * network (or, here, a busy machine) delayed, a jitter no sender controls.
 */
function overBudget(from: number): [string, number][] {
  return [...refusedUnder(sim.siteLog.slice(from), budget.perSecond, budget.burst + 1)].filter(
    ([, refused]) => refused > 0,
  );
}

describe('request budgets against sites that rate-limit', () => {
  it('the default budget fits within the simulated web’s strictest seeded limit', () => {
    expect(budget.perSecond).toBeLessThan(SITE_LIMIT_RANGE.min);
    expect(budget.burst).toBeLessThan(SITE_LIMIT_RANGE.min);
    expect(siteLimit(strict, 1)).toBeGreaterThan(strict.budget!.perSecond);
  });

  it('many searches at once stay within the budget per site and address, and meet no 429', async () => {
    const on = engine();
    const from = sim.siteLog.length;
    const searches = 12;
    const results = await Promise.all(Array.from({ length: searches }, (_, i) => search(on, `nobody${i}`)));
    for (const outcomes of results) {
      expect(outcomes).toHaveLength(relaxed.length);
      expect(outcomes.filter((o) => o.status !== 'miss')).toEqual([]);
    }
    expect(sim.stats().limited.total).toBe(0);
    const log = sim.siteLog.slice(from);
    expect(log).toHaveLength(searches * relaxed.length);
    expect(log.filter((r) => r.site === 'shared.test')).toHaveLength(searches * SHARED);
    expect(overBudget(from)).toEqual([]);
    // The shared site was sent as much as the budget allows, not fewer: the bound was reached.
    expect(busiest(from).get('shared.test 127.0.0.1')).toBeGreaterThan(budget.burst);
  }, 60_000);

  it('a client over a site’s limit meets its 429s, counted per site and per address', async () => {
    const rude = engine({ budgetPerSecond: 1000, budgetBurst: 1000 });
    const from = sim.siteLog.length;
    const before = sim.stats().limited;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => search(rude, `rude${i}`)));
    const limited = results.flat().filter((o) => o.status === 'unknown' && o.reason === 'rate_limited');
    const after = sim.stats().limited;
    expect(limited.length).toBeGreaterThan(0);
    expect(after.total - before.total).toBe(limited.length);
    expect(after.byAddress['127.0.0.1']! - (before.byAddress['127.0.0.1'] ?? 0)).toBe(limited.length);
    expect(after.bySite['shared.test']).toBeGreaterThan(0);
    // What the polite searches are held to, this one breaks.
    expect(overBudget(from).length).toBeGreaterThan(0);
  }, 60_000);

  it('spreads one site’s requests over two source addresses, each within its budget', async () => {
    const on = engine({ egress: ['addr:127.0.0.2', 'addr:127.0.0.3'] });
    const from = sim.siteLog.length;
    const limitedBefore = sim.stats().limited.total;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => search(on, `twice${i}`)));
    expect(results.flat().filter((o) => o.status !== 'miss')).toEqual([]);
    expect(sim.stats().limited.total).toBe(limitedBefore);
    const shared = sim.siteLog.slice(from).filter((r) => r.site === 'shared.test');
    const byAddress = new Map<string, number>();
    for (const r of shared) byAddress.set(r.address, (byAddress.get(r.address) ?? 0) + 1);
    expect([...byAddress.keys()].sort()).toEqual(['127.0.0.2', '127.0.0.3']);
    for (const count of byAddress.values()) expect(count).toBeGreaterThan(0);
    expect(overBudget(from)).toEqual([]);
  }, 60_000);

  it('ends a check at once as unknown/budget_exhausted, sending nothing, when no slot comes in time', async () => {
    const on = engine({ timeoutMs: 300 });
    const from = sim.siteLog.length;
    const outcomes = await Promise.all(['s1', 's2', 's3'].map((name) => on.check(strict, name)));
    const sent = outcomes.filter((o) => o.status === 'miss');
    const held = outcomes.filter((o) => o.reason === 'budget_exhausted');
    expect(sent).toHaveLength(1);
    expect(held).toHaveLength(2);
    for (const outcome of held) {
      expect(outcome.status).toBe('unknown');
      expect(outcome.responseTime).toBe(0);
      expect(outcome.evidence.attempts).toBe(0);
      expect(outcome.evidence.httpStatus).toBeUndefined();
      expect(outcome.evidence.rule).toMatch(
        /^not sent: the local request budget for this origin \(0\.5\/s, burst 1/,
      );
    }
    // The simulated web saw the one request sent, and nothing of the two held back.
    expect(sim.siteLog.slice(from).filter((r) => r.site === 'strict.test')).toHaveLength(1);
  });

  it('serves its counts at /__stats for the benchmark', async () => {
    const answer = await request(`http://127.0.0.1:${sim.port}/__stats`, {
      headers: { host: CONTROL_HOST },
    });
    const served = (await answer.body.json()) as ReturnType<SimWeb['stats']>;
    expect(served.limited).toEqual(sim.stats().limited);
    expect(served.requests['strict.test']).toEqual({ '127.0.0.1': 1 });
  });
});
