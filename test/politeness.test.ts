/**
 * Politeness as the simulated web sees it: sites that rate-limit each client
 * address (429 beyond N requests a second) and log every request. Many searches
 * at once stay within the request budget and meet no 429; two source addresses
 * share the load, each within its budget; a check whose budget has no slot in
 * time ends as unknown/budget_exhausted and is never sent; retries after a 429
 * wait for a slot of their own, and end the check when none comes in time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.js';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { busiestWindow, SITE_LIMIT_RANGE, siteLimit } from '../src/sim/site-limits.js';
import { budgetAllows, LATE_MS, watchingStalls } from './support/budget-bound.js';
import { catalogueOf, entry } from './support/catalogue.js';
import { engineFor } from './support/engine.js';

const SHARED = 3;
const catalogue = catalogueOf([
  ...Array.from({ length: 8 }, (_, i) => entry(`Own ${i}`)),
  // Several platforms on one host: one site, one budget.
  ...Array.from({ length: SHARED }, (_, i) =>
    entry(`Shared ${i}`, { home: 'https://shared.test/', profile: `https://shared.test/p${i}/{username}` }),
  ),
  entry('Strict', { budget: { perSecond: 0.5 } }),
]);
const strict = catalogue.platforms.find((p) => p.id === 'strict')!;
const relaxed = catalogue.platforms.filter((p) => p !== strict);
const budget = { perSecond: SETTINGS.budgetPerSecond.default, burst: SETTINGS.budgetBurst.default };
/**
 * The most requests of one address a second can hold at the simulated web when every
 * request goes at or after its budget slot: on a loaded machine (the whole suite on
 * 2 cores) the sender's and the web's event loops run late, and requests sent on time
 * are logged together (test/support/budget-bound.ts).
 */
const ON_TIME_MOST = budgetAllows(budget, 1000);
// Every site strict: limited at the seeding's strictest, or at what on-time requests can
// bunch to when that is more (the strict platform, by its budget).
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  latency: () => 30,
  rateLimit: (p) => (p.budget ? siteLimit(p, 1) : Math.max(SITE_LIMIT_RANGE.min, ON_TIME_MOST)),
});
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth, logRequests: true });
const engines: Engine[] = [];

beforeAll(async () => {
  await sim.start();
  // Certificates made on first use take the simulated web up to seconds on a busy machine, a
  // stall no real site has: requests sent on time would arrive together when it ends.
  await sim.prepareTls(catalogue.platforms.map((p) => new URL(p.home).hostname));
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await sim.stop();
});

function engine(
  overrides: Parameters<typeof engineFor>[2] = {},
  options: Parameters<typeof engineFor>[3] = {},
): Engine {
  const made = engineFor(sim, catalogue, { timeoutMs: 20_000, retries: 0, ...overrides }, options);
  engines.push(made);
  return made;
}

async function search(on: Engine, username: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of on.search(username, relaxed)) outcomes.push(outcome);
  return outcomes;
}

/**
 * Runs `searches` searches at once (usernames `prefix`0, 1, ...), expects every platform of
 * each to answer miss (none held back by the budget), and gives the shared site's log of them.
 */
async function everyCheckAnswered(on: Engine, prefix: string, searches: number) {
  const from = sim.siteLog.length;
  const results = await Promise.all(Array.from({ length: searches }, (_, i) => search(on, `${prefix}${i}`)));
  for (const outcomes of results) {
    expect(outcomes).toHaveLength(relaxed.length);
    const other = outcomes.filter((o) => o.status !== 'miss');
    expect(
      other,
      JSON.stringify(other.map((o) => [o.platform, o.status, o.reason, o.evidence.rule])),
    ).toEqual([]);
  }
  return sim.siteLog.slice(from).filter((r) => r.site === 'shared.test');
}

/** The simulated web's log since `from`: the most requests one address sent one site within a second. */
function busiest(from: number) {
  return busiestWindow(sim.siteLog.slice(from), 1000);
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
    const { result: results, lateMs } = await watchingStalls(() =>
      Promise.all(Array.from({ length: searches }, (_, i) => search(on, `nobody${i}`))),
    );
    for (const outcomes of results) {
      expect(outcomes).toHaveLength(relaxed.length);
      expect(outcomes.filter((o) => o.status !== 'miss')).toEqual([]);
    }
    expect(sim.stats().limited.total).toBe(0);
    const log = sim.siteLog.slice(from);
    expect(log).toHaveLength(searches * relaxed.length);
    expect(log.filter((r) => r.site === 'shared.test')).toHaveLength(searches * SHARED);
    for (const [key, most] of busiest(from))
      expect(most, key).toBeLessThanOrEqual(budgetAllows(budget, 1000, lateMs));
    // The shared site was sent as much as the budget allows, not fewer: the bound was reached.
    expect(busiest(from).get('shared.test 127.0.0.1')).toBeGreaterThan(budget.burst);
  }, 60_000);

  it('a client over a site’s limit meets its 429s, counted per site and per address', async () => {
    const rude = engine({ budgetPerSecond: 1000, budgetBurst: 1000 });
    const before = sim.stats().limited;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => search(rude, `rude${i}`)));
    const limited = results.flat().filter((o) => o.status === 'unknown' && o.reason === 'rate_limited');
    const after = sim.stats().limited;
    expect(limited.length).toBeGreaterThan(0);
    expect(after.total - before.total).toBe(limited.length);
    expect(after.byAddress['127.0.0.1']! - (before.byAddress['127.0.0.1'] ?? 0)).toBe(limited.length);
    expect(after.bySite['shared.test']).toBeGreaterThan(0);
  }, 60_000);

  it('spreads one site’s requests over two source addresses, each within its budget', async () => {
    const on = engine({ egress: ['addr:127.0.0.2', 'addr:127.0.0.3'] });
    const from = sim.siteLog.length;
    const limitedBefore = sim.stats().limited.total;
    const { result: results, lateMs } = await watchingStalls(() =>
      Promise.all(Array.from({ length: 12 }, (_, i) => search(on, `twice${i}`))),
    );
    expect(results.flat().filter((o) => o.status !== 'miss')).toEqual([]);
    expect(sim.stats().limited.total).toBe(limitedBefore);
    const shared = sim.siteLog.slice(from).filter((r) => r.site === 'shared.test');
    const byAddress = new Map<string, number>();
    for (const r of shared) byAddress.set(r.address, (byAddress.get(r.address) ?? 0) + 1);
    expect([...byAddress.keys()].sort()).toEqual(['127.0.0.2', '127.0.0.3']);
    for (const count of byAddress.values()) expect(count).toBeGreaterThan(0);
    for (const [key, most] of busiest(from))
      expect(most, key).toBeLessThanOrEqual(budgetAllows(budget, 1000, lateMs));
  }, 60_000);

  it('starts searches when their requests fit the deadline, so searches at once lose no check to the budget', async () => {
    // 3 s checks: 0.9 x 3 s at 4/s sends 10 requests, three searches' worth of the shared
    // site's 3 at a time; eight at once ask it 24 times, so the rest must wait to start. A
    // deadline this long leaves room for a loaded machine's stalls, which are not the budget's.
    const searches = 8;
    const shared = await everyCheckAnswered(engine({ timeoutMs: 3000 }), 'waits', searches);
    expect(shared).toHaveLength(searches * SHARED);
    // The budget paced them: the last went out at least (24 - burst) / 4 s after the first. The
    // times are arrivals at the site: a first request held up on a loaded machine (its handshake)
    // arrives late and shortens the span, so a second of slack; unpaced, all 24 would come in
    // well under one.
    const spanMs = shared[shared.length - 1]!.at - shared[0]!.at;
    expect(spanMs).toBeGreaterThanOrEqual(
      ((searches * SHARED - budget.burst) / budget.perSecond) * 1000 - 1000,
    );
  }, 60_000);

  it('counts the controls checks send alongside them (eager) before a search starts', async () => {
    // As the service sends them: each platform's first check of a window takes its control
    // with it, a request of the same budget. Counted as the searches' checks are, the eight
    // searches of the test above lose none of their 24 checks to the 3 controls.
    const searches = 8;
    const on = engine({ timeoutMs: 3000 }, { eagerControls: () => true });
    const shared = await everyCheckAnswered(on, 'vets', searches);
    // A check each, and one control for each of the site's platforms (one identity, one window).
    expect(shared).toHaveLength(searches * SHARED + SHARED);
  }, 60_000);

  it('ends a check at once as unknown/budget_exhausted, sending nothing, when no slot comes in time', async () => {
    // A second slot comes 2 s after the first (0.5/s): past a 1 s deadline, which leaves the one
    // sent time to be answered on a loaded machine.
    const on = engine({ timeoutMs: 1000 });
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
});

describe('retries keep the budget', () => {
  // Sites that answer 429 (with Retry-After: 0) before they answer: the retries come quickly,
  // the backoff is 1 ms, and only the budget spaces them.
  const paced = catalogueOf([
    entry('Busy', { budget: { perSecond: 2, burst: 1 } }),
    entry('Busier', { budget: { perSecond: 1, burst: 1 } }),
  ]);
  const [busy, busier] = paced.platforms as [(typeof paced.platforms)[0], (typeof paced.platforms)[0]];
  const limited = (times: number) => () =>
    ({
      kind: 'rate-limit',
      times,
      retryAfter: '0',
      after: { kind: 'respond', status: 404, body: 'nope' },
    }) as const;
  const web = new SimWeb({
    routes: [
      { host: 'busy.test', handle: limited(3) },
      { host: 'busier.test', handle: limited(100) },
    ],
    logRequests: true,
  });
  let on: Engine;
  beforeAll(async () => {
    await web.start();
    await web.prepareTls(['busy.test', 'busier.test']);
    on = engineFor(web, paced, { retries: 3, retryBaseMs: 1, retryMaxMs: 1, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await on.close();
    await web.stop();
  });

  it('spaces the retries after a 429 by the origin’s budget, not by the backoff', async () => {
    const { result: outcome, lateMs } = await watchingStalls(() => on.check(busy, 'alice'));
    expect(outcome.status).toBe('miss');
    expect(outcome.evidence.attempts).toBe(4);
    const seen = web.siteLog.filter((r) => r.site === 'busy.test').map((r) => r.at);
    expect(seen).toHaveLength(4);
    // 2 a second: a slot every 500 ms, 1.5 s from the first to the fourth. The web logs a request
    // when its loop gets to it, so one logged late shortens one gap and lengthens the next: the
    // span is read, less one slot for the first logged late. The backoff alone spaces them by 1 ms.
    expect(seen.at(-1)! - seen[0]!).toBeGreaterThan(1_000 - Math.max(0, lateMs - LATE_MS));
    // Within the budget's bound in any second (burst + rate), as every other request.
    expect(busiestWindow(web.siteLog, 1000).get('busy.test 127.0.0.1')).toBeLessThanOrEqual(
      budgetAllows({ perSecond: 2, burst: 1 }, 1000, lateMs),
    );
  }, 20_000);

  it('ends the check with the answer it has when the next slot would pass its deadline', async () => {
    const short = engineFor(web, paced, { retries: 3, retryBaseMs: 1, retryMaxMs: 1, timeoutMs: 1_500 });
    try {
      const outcome = await short.check(busier, 'alice');
      // A slot a second: the first retry at 1 s, the next slot (2 s) is past the deadline.
      expect(outcome.status).toBe('unknown');
      expect(outcome.reason).toBe('rate_limited');
      expect(outcome.evidence.attempts).toBe(2);
      expect(outcome.evidence.httpStatus).toBe(429);
      expect(web.siteLog.filter((r) => r.site === 'busier.test')).toHaveLength(2);
    } finally {
      await short.close();
    }
  }, 20_000);
});
