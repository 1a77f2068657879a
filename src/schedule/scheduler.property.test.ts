/**
 * The scheduler's invariants over random interleavings (seeded, on a fake clock):
 * searches admitted and cancelled, checks on their own, retries and controls of
 * checks in flight, event-loop stalls, one or two identities and a learned limit
 * below the catalogue's. In every run: no (site, identity) is sent more than its
 * budget allows (after its burst), counted on the times requests really went; no
 * more checks in flight than the caps; a cancelled booking is never sent; every
 * booking ends; and the scheduler forgets every site once all is done.
 */
import { setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FakeClock, runOut, seeded } from '../../test/support/fake-clock.js';
import { sleep } from './clock.js';
import { type LimitSource, withinCeiling } from './limits.js';
import type { BudgetLimit } from './rate-budget.js';
import { type Admission, type Cancellation, Scheduler, type SiteDemand } from './scheduler.js';

interface Sent {
  readonly key: string;
  readonly at: number;
}

/** A booking's cancellation, called when `signal` aborts. */
function cancellation(signal: AbortSignal | undefined): Cancellation | undefined {
  if (!signal) return undefined;
  const handle: Cancellation = {};
  signal.addEventListener('abort', () => handle.cancel?.(signal.reason), { once: true });
  return handle;
}

const RATES = [0.5, 1, 2, 4, 10];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Whether the send times of one key keep GCRA(limit): each at or after its allowance. */
function overBudget(times: readonly number[], limit: BudgetLimit): number | undefined {
  const interval = 1000 / limit.perSecond;
  const tolerance = (limit.burst - 1) * interval;
  let tat = Number.NEGATIVE_INFINITY;
  for (const at of [...times].sort((a, b) => a - b)) {
    if (at < tat - tolerance - 1e-6) return at;
    tat = Math.max(tat, at) + interval;
  }
  return undefined;
}

/** One random run; resolves to what it saw. */
async function scenario(seed: number) {
  const random = seeded(seed);
  const clock = new FakeClock();
  const identities = random() < 0.5 ? ['a'] : ['a', 'b'];
  const sites = ['one.test', 'two.test', 'three.test'];
  const ceilings = new Map<string, BudgetLimit>(
    sites.map((s) => [s, { perSecond: pick(random, RATES), burst: 1 + Math.floor(random() * 3) }]),
  );
  // A limit learned below the catalogue's for one (site, identity), sometimes.
  const learnedKey = random() < 0.5 ? `${pick(random, sites)}|${pick(random, identities)}` : undefined;
  const limits: LimitSource = {
    limitOf: (site, identity, ceiling) =>
      `${site}|${identity}` === learnedKey ? { perSecond: ceiling.perSecond / 2, burst: 1 } : ceiling,
  };
  const global = 1 + Math.floor(random() * 6);
  const perSite = 1 + Math.floor(random() * 3);
  const scheduler = new Scheduler({
    identities,
    global,
    perSite,
    admitWithinMs: 500 + random() * 5000,
    limits,
    clock,
  });
  const sent: Sent[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const perKey = new Map<string, number>();
  let mostPerKey = 0;
  let bookings = 0;
  let ended = 0;
  const cancelledSent: string[] = [];

  /** One check: sends, maybe follows it with a retry or a control, answers after a while. */
  const checkRun = (site: string, signal: AbortSignal | undefined) => async (identity: number) => {
    const key = `${site}|${identities[identity]}`;
    if (signal?.aborted) cancelledSent.push(key);
    sent.push({ key, at: clock.now() });
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    perKey.set(key, (perKey.get(key) ?? 0) + 1);
    mostPerKey = Math.max(mostPerKey, perKey.get(key)!);
    try {
      await sleep(clock, random() * 800);
      const follows = Math.floor(random() * 3);
      for (let i = 0; i < follows; i++) {
        const go = await scheduler.pace(site, identity, ceilings.get(site)!, random() * 3000);
        if (!go) break;
        sent.push({ key, at: clock.now() });
        await sleep(clock, random() * 300);
      }
    } finally {
      inFlight--;
      perKey.set(key, perKey.get(key)! - 1);
    }
  };

  const track = (p: Promise<unknown>) => {
    bookings++;
    p.then(
      () => ended++,
      () => ended++,
    );
  };

  // Searches and lone checks arrive over the first seconds; some are cancelled.
  const arrivals = 4 + Math.floor(random() * 10);
  for (let n = 0; n < arrivals; n++) {
    const at = random() * 4000;
    const lone = random() < 0.25;
    const priority = random() < 0.3 ? 1 : 0;
    const cancel = random() < 0.3 ? new AbortController() : undefined;
    if (cancel) setMaxListeners(0, cancel.signal);
    if (cancel) clock.setTimer(() => cancel.abort(new Error('cancelled')), at + random() * 3000);
    clock.setTimer(() => {
      if (lone) {
        const site = pick(random, sites);
        track(
          scheduler.book({
            site,
            ceiling: ceilings.get(site)!,
            priority,
            maxWaitMs: random() * 4000,
            cancel: cancellation(cancel?.signal),
            run: checkRun(site, cancel?.signal),
          }),
        );
        return;
      }
      const checks = sites.flatMap((site) => Array.from({ length: Math.floor(random() * 6) }, () => site));
      const demand = new Map<string, SiteDemand>();
      for (const site of checks) {
        const d = demand.get(site);
        demand.set(site, { requests: (d?.requests ?? 0) + 1, ceiling: ceilings.get(site)! });
      }
      // A request counted for a control that is then not needed, sometimes.
      const spare = random() < 0.5 ? pick(random, sites) : undefined;
      if (spare)
        demand.set(spare, {
          requests: (demand.get(spare)?.requests ?? 0) + 1,
          ceiling: ceilings.get(spare)!,
        });
      const admitted = scheduler.admit(demand, priority, cancel?.signal);
      track(admitted);
      admitted.then(
        (admission: Admission) => {
          for (const site of checks)
            track(
              admission.book({
                site,
                ceiling: ceilings.get(site)!,
                priority,
                maxWaitMs: 2000 + random() * 4000,
                cancel: cancellation(cancel?.signal),
                run: checkRun(site, cancel?.signal),
              }),
            );
          if (spare) clock.setTimer(() => admission.release(spare), random() * 2000);
          clock.setTimer(() => admission.close(), 8000);
        },
        () => {},
      );
    }, at);
  }

  await runOut(clock, 1_000_000, () => {
    // Now and then the event loop stalls: timers fire late, together.
    if (random() < 0.05) clock.stall(random() * 1500);
  });

  const limitOf = (key: string): BudgetLimit => {
    const [site, identity] = key.split('|') as [string, string];
    const ceiling = ceilings.get(site)!;
    return withinCeiling(limits.limitOf(site, identity, ceiling), ceiling);
  };
  const byKey = new Map<string, number[]>();
  for (const s of sent) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.at]);
  const over = [...byKey].flatMap(([key, times]) => {
    const at = overBudget(times, limitOf(key));
    return at === undefined ? [] : [`${key} at ${at}`];
  });
  return {
    over,
    mostInFlight,
    global,
    mostPerKey,
    perSite,
    bookings,
    ended,
    cancelledSent,
    sites: scheduler.sites,
    sent: sent.length,
  };
}

describe('the scheduler, over random interleavings', () => {
  it('keeps every (site, identity) within its budget, the caps, and every booking’s end', async () => {
    let sentOverall = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const run = await scenario(seed);
      expect(run.over, `seed ${seed}`).toEqual([]);
      expect(run.mostInFlight, `seed ${seed}`).toBeLessThanOrEqual(run.global);
      expect(run.mostPerKey, `seed ${seed}`).toBeLessThanOrEqual(run.perSite);
      expect(run.cancelledSent, `seed ${seed}`).toEqual([]);
      expect(run.ended, `seed ${seed}`).toBe(run.bookings);
      expect(run.sites, `seed ${seed}`).toBe(0);
      sentOverall += run.sent;
    }
    // The runs did send: the invariants were tested on traffic, not on nothing.
    expect(sentOverall).toBeGreaterThan(1000);
  }, 120_000);
});
