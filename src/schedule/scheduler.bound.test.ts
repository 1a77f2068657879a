/**
 * The scheduler against its politeness bound, on a fake clock: many searches at
 * once over one busy site (several platforms on one budget) and many quiet ones,
 * with more checks wanting to be in flight than the in-flight cap allows. The
 * busiest site must send at its budget from first to last, so the searches end
 * within its bound (its requests ÷ its rate, or the slowest answer), whatever the
 * cap and the quiet sites do. The sites' answer times and the cap's share of them
 * are in the proportions of the benchmark's simulated web and default settings.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, runOut, seeded } from '../../test/support/fake-clock.js';
import { sleep } from './clock.js';
import { Scheduler, type SiteDemand } from './scheduler.js';

const BUDGET = { perSecond: 4, burst: 2 };
const BUSY = 'busy.test';
const BUSY_PLATFORMS = 9;
const QUIET_SITES = 400;
const TIMEOUT_MS = 10_000;

async function run(searches: number) {
  const random = seeded(searches);
  const clock = new FakeClock();
  // Fewer slots than checks that could be in flight at the quiet sites' budgets.
  const scheduler = new Scheduler({ global: 160, perSite: 32, admitWithinMs: 0.9 * TIMEOUT_MS, clock });
  const latency = new Map<string, number>([[BUSY, 300]]);
  // As the simulated web's realistic profile: most answer fast, some slowly, a few never (the timeout).
  for (let i = 0; i < QUIET_SITES; i++) {
    const r = random();
    latency.set(`q${i}.test`, r < 0.01 ? TIMEOUT_MS : r < 0.03 ? 8000 : r < 0.13 ? 2000 : 300);
  }
  const demand = new Map<string, SiteDemand>();
  for (const [site] of latency)
    demand.set(site, { requests: site === BUSY ? BUSY_PLATFORMS : 1, ceiling: BUDGET });
  const order = [...latency].sort((a, b) => b[1] - a[1]);
  let dropped = 0;
  // Every other search professional: its checks go first in each site's line.
  const search = async (_: unknown, index: number) => {
    const priority = index % 2;
    const admission = await scheduler.admit(demand, priority);
    const checks: Promise<unknown>[] = [];
    // Slowest first, each with its expected answer time, as the engine books them.
    for (const [site, ms] of order)
      for (let i = 0; i < (site === BUSY ? BUSY_PLATFORMS : 1); i++)
        checks.push(
          admission
            .book({
              site,
              ceiling: BUDGET,
              priority,
              expectedMs: ms,
              maxWaitMs: TIMEOUT_MS,
              run: () => sleep(clock, ms),
            })
            .then((scheduled) => {
              if (!scheduled.sent) dropped++;
            }),
        );
    await Promise.all(checks);
    admission.close();
    return clock.now();
  };
  const ends = Promise.all(Array.from({ length: searches }, search));
  await runOut(clock);
  const last = Math.max(...(await ends));
  // The benchmark's bound: the busiest site's requests at its budget, or the slowest answer.
  const bound = Math.max(
    ((searches * BUSY_PLATFORMS) / BUDGET.perSecond) * 1000,
    Math.max(...latency.values()),
  );
  return { ratio: last / bound, dropped };
}

describe('the scheduler under load', () => {
  it.each([1, 10, 50])('ends %i searches at once within their politeness bound, dropping none', async (n) => {
    const { ratio, dropped } = await run(n);
    expect(dropped).toBe(0);
    // On a fake clock nothing is late: only the model's own waste shows.
    expect(ratio).toBeLessThanOrEqual(1.02);
  });
});
