/**
 * Sites that limit harder than our budget, as the simulated web plays them: 2 requests a
 * second per client address, answered 429 with each header form real sites use (those that
 * state a policy state it on every answer). A first
 * search meets the limit and learns it; the next search sends within it, as the site
 * counts (its 429s, and its log of requests per second).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../src/catalogue/platform.js';
import { SETTINGS } from '../src/config.js';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { MemoryLimitShelf } from '../src/schedule/site-limit-book.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { busiestWindow, LIMIT_ANSWERS, type LimitAnswer } from '../src/sim/site-limits.js';
import { budgetAllows, watchingStalls } from './support/budget-bound.js';
import { catalogueOf, entry } from './support/catalogue.js';
import { engineFor } from './support/engine.js';

/** The sites' limit: half our default budget. */
const SITE_LIMIT = 2;
const PER_SITE = 8;
const siteOf = (answer: LimitAnswer) => `${answer}.test`;
const catalogue = catalogueOf(
  LIMIT_ANSWERS.flatMap((answer) =>
    Array.from({ length: PER_SITE }, (_, i) =>
      entry(`${answer} ${i}`, {
        home: `https://${siteOf(answer)}/`,
        profile: `https://${siteOf(answer)}/p${i}/{username}`,
      }),
    ),
  ),
);
const platformsOf = (answer: LimitAnswer): Platform[] =>
  catalogue.platforms.filter((p) => new URL(p.home).hostname === siteOf(answer));
const sim = new SimWeb({
  routes: LIMIT_ANSWERS.flatMap(
    (answer) =>
      emulateCatalogue(platformsOf(answer), catalogue.shields, {
        latency: () => 20,
        rateLimit: () => SITE_LIMIT,
        limitAnswer: answer,
      }).routes,
  ),
  logRequests: true,
});
const engines: Engine[] = [];

beforeAll(async () => {
  await sim.start();
  await sim.prepareTls(LIMIT_ANSWERS.map(siteOf));
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await sim.stop();
});

async function search(on: Engine, username: string, platforms: readonly Platform[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of on.search(username, platforms)) outcomes.push(outcome);
  return outcomes;
}

const limitedAt = (site: string) => sim.stats().limited.bySite[site] ?? 0;

describe('a site that answers 429 teaches its limit', () => {
  it('the sites limit harder than the default budget', () => {
    expect(SITE_LIMIT).toBeLessThan(SETTINGS.budgetPerSecond.default);
  });

  // Each header form has its own site, engine and shelf, and its waits are the site's pace:
  // the forms run together rather than one after another.
  it.concurrent.for([...LIMIT_ANSWERS])(
    'with %s headers: the next search sends within it',
    { timeout: 60_000 },
    async (answer, { expect }) => {
      const site = siteOf(answer);
      const platforms = platformsOf(answer);
      const shelf = new MemoryLimitShelf();
      const on = engineFor(
        sim,
        catalogue,
        { timeoutMs: 20_000, retries: 2, retryMaxMs: 2_000 },
        { siteLimits: shelf },
      );
      engines.push(on);

      // The first search meets the limit (our budget is twice it) and learns from the 429s, or,
      // where the site states its policy on every answer, from its first answers.
      const stating = answer === 'ratelimit' || answer === 'ratelimit-fields';
      await search(on, 'first', platforms);
      if (!stating) expect(limitedAt(site)).toBeGreaterThan(0);
      const learned = (await shelf.learned(Date.now())).filter((e) => e.origin === site);
      expect(learned).toHaveLength(1);
      const { limit } = learned[0]!;
      expect(limit.perSecond).toBeLessThanOrEqual(SITE_LIMIT);
      // A site that states its policy is taken at its word; the others are guessed at by halving.
      expect(limit.stated).toBe(stating);
      if (limit.stated) expect(limit.perSecond).toBe(SITE_LIMIT);

      // The next search: no 429, every platform answered, at most the learned rate at the site.
      const before = limitedAt(site);
      const from = sim.siteLog.length;
      const { result: outcomes, lateMs } = await watchingStalls(() => search(on, 'second', platforms));
      expect(limitedAt(site) - before).toBe(0);
      expect(outcomes.filter((o) => o.status !== 'miss')).toEqual([]);
      const log = sim.siteLog.slice(from).filter((r) => r.site === site);
      expect(log).toHaveLength(PER_SITE);
      const most = busiestWindow(log, 1000).get(`${site} 127.0.0.1`)!;
      expect(most).toBeLessThanOrEqual(budgetAllows({ perSecond: limit.perSecond, burst: 1 }, 1000, lateMs));
    },
  );
});
