/**
 * Sites that limit harder than our default budget. Every simulated site lets each
 * client address send at most 2 requests a second, and says so as real sites do (by default
 * the IETF draft's RateLimit and RateLimit-Policy headers: the policy on every answer, the
 * wait on its 429s; BENCH_LIMIT_ANSWER picks another form). A first search through the API
 * meets the limits and learns them; then 20 searches at once: their 429s, and their time
 * against the politeness bound at the sites' real limits.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from '../../src/catalogue/platform.js';
import { LIMIT_ANSWERS, type LimitAnswer } from '../../src/sim/site-limits.js';
import { Child } from '../child.js';
import { type BenchCase, type BenchContext, SIM_KEEP_ALIVE_MS, type SimHandle } from '../context.js';
import type { LimitTrace } from '../limit-trace.js';
import { loadPlatformSet, type StrictLimit } from '../platform-set.js';
import { identitiesOf, politenessBound } from '../politeness.js';
import type { SimInput, SimReady } from '../sim-child.js';
import { API_OVERRIDES, BOUND_TARGET, measureApiLevel, settingOf } from './api-searches.js';

/** The sites' limit per client address: half the default budget. */
const SITE_PER_SECOND = 2;
const SEARCHES = 20;
const QUICK_SEARCHES = 10;

function limitAnswer(): LimitAnswer {
  const chosen = process.env.BENCH_LIMIT_ANSWER ?? 'ratelimit';
  if (!(LIMIT_ANSWERS as readonly string[]).includes(chosen))
    throw new Error(`BENCH_LIMIT_ANSWER must be one of ${LIMIT_ANSWERS.join(', ')}; received ${chosen}`);
  return chosen as LimitAnswer;
}

/** The simulated web with every site strict, in a process of its own (not shared with other cases). */
async function strictSim(ctx: BenchContext, strict: StrictLimit): Promise<SimHandle> {
  const input: SimInput = {
    set: 'builtin',
    profile: 'realistic',
    seed: ctx.seed,
    keepAliveMs: SIM_KEEP_ALIVE_MS,
    strict,
  };
  const child = await Child.start<SimReady>('./sim-child.ts', input);
  const caFile = join(ctx.workDir, `sim-ca-strict-${strict.answer}.pem`);
  writeFileSync(caFile, child.ready.caCert);
  return { child, connectTo: child.ready.connectTo, caFile };
}

/** The platforms as the sites limit them: no budget above the sites' limit. */
function atSiteLimits(platforms: readonly Platform[]): Platform[] {
  return platforms.map((p) =>
    p.budget && p.budget.perSecond > SITE_PER_SECOND
      ? { ...p, budget: { perSecond: SITE_PER_SECOND, burst: Math.min(p.budget.burst, SITE_PER_SECOND) } }
      : p,
  );
}

export const strictSitesCase: BenchCase = {
  id: '11',
  title: `sites that limit harder than the budget (${SITE_PER_SECOND}/s per address): learned by a first search, then searches at once through the API`,
  // Its simulated web is its own (strict sites), started by the case.
  sims: () => [],
  async run(ctx) {
    const answer = limitAnswer();
    const searches = ctx.quick ? QUICK_SEARCHES : SEARCHES;
    const sim = await strictSim(ctx, { perSecond: SITE_PER_SECOND, answer });
    try {
      const onStrictWeb: BenchContext = { ...ctx, sim: async () => sim };
      // The warm-up search is the first search: it meets the sites' limits and learns them.
      const level = await measureApiLevel(
        onStrictWeb,
        searches,
        ctx.serverOverrides,
        undefined,
        undefined,
        'realistic',
        true,
      );
      const limitedInAll = await sim.child.request<number>('rateLimited');
      const firstLimited = limitedInAll - level.rateLimited;
      const bySite = await sim.child.request<Record<string, number>>('rateLimitedBySite');
      const trace = await sim.child.request<LimitTrace>('limitTrace');
      const identities = identitiesOf(ctx.serverOverrides);
      const searched = loadPlatformSet('builtin', ctx.seed).searched;
      const bound = politenessBound(atSiteLimits(searched), {
        identities,
        budget: { perSecond: SITE_PER_SECOND, burst: SITE_PER_SECOND },
        profile: 'realistic',
        seed: ctx.seed,
        timeoutMs: settingOf(ctx.serverOverrides, 'timeoutMs'),
        searches,
      });
      const vsBound = level.makespanMs / bound.boundMs;
      const unfinished = level.completed < level.searches;
      return {
        id: this.id,
        title: this.title,
        columns: [
          { key: 'completed', title: 'done', better: 'higher' },
          { key: 'firstLimited', title: '429s of the first search', better: 'none' },
          { key: 'rateLimited', title: '429s', better: 'lower' },
          { key: 'makespan', title: 'all done ms', better: 'lower' },
          { key: 'boundMs', title: 'politeness bound ms (sites’ limits)', better: 'none' },
          { key: 'vsBound', title: 'x bound', better: 'lower', digits: 2 },
          { key: 'answeredFewest', title: 'answered (fewest a search)', better: 'higher' },
          { key: 'unknownMost', title: 'unknown (most a search)', better: 'lower' },
          { key: 'errors', title: 'errors', better: 'lower' },
        ],
        rows: [
          {
            label: `${searches} at once, after one`,
            values: {
              completed: level.completed,
              firstLimited,
              rateLimited: level.rateLimited,
              makespan: Math.round(level.makespanMs),
              boundMs: Math.round(bound.boundMs),
              vsBound,
              answeredFewest: level.answeredFewest,
              unknownMost: level.unknownMost,
              errors: level.errors,
            },
          },
        ],
        targets: [
          {
            text: `${searches} at once after a first search meet no 429 (${level.rateLimited})`,
            value: level.rateLimited,
            met: level.rateLimited === 0,
          },
          {
            text: `${searches} at once all done within ${BOUND_TARGET} x the politeness bound at the sites' limits (${unfinished ? '>= ' : ''}${vsBound.toFixed(2)})`,
            value: vsBound,
            met: !unfinished && vsBound <= BOUND_TARGET,
          },
        ],
        notes: [
          `every simulated site allows ${SITE_PER_SECOND} requests a second per client address (a burst of ${SITE_PER_SECOND}), or its seeded limit when lower, and tells of it with ${answer} headers; the service runs its defaults (budget ${settingOf(ctx.serverOverrides, 'budgetPerSecond')}/s, burst ${settingOf(ctx.serverOverrides, 'budgetBurst')})`,
          `politeness bound = for each origin, searches x its platforms ÷ (${SITE_PER_SECOND}/s, or its catalogue budget when lower, x ${identities} identit${identities === 1 ? 'y' : 'ies'}) + its slowest latency, the largest over the origins: ${bound.origin} (${bound.requests} requests)`,
          `the first search (a name not measured) runs to the end on a fresh server before the measured ones start; its 429s are those it met while learning`,
          `429s by site over the case (first search and level), the most first: ${
            Object.entries(bySite)
              .sort((a, b) => b[1] - a[1])
              .slice(0, 20)
              .map(([site, n]) => `${site} ${n}`)
              .join(', ') || 'none'
          }${Object.keys(bySite).length > 20 ? `, and ${Object.keys(bySite).length - 20} sites more` : ''}`,
          `why the 429s came: ${trace.refused} refused (first search and level), ${trace.refusedAfterTold} of them by a site that had told its limit before (the rest by ${Object.keys(trace.refusedUntold).length} sites before they had: no answer of theirs had reached us, a name their rule refuses, a defence's page); ${trace.refusedLate} of them counted while the simulated web's own event loop ran ${trace.lateMs} ms or more late (of every request: ${(trace.shareLate * 100).toFixed(1)}%); the first refused after the site had told, with ms since the two before them from the address and the loop's lateness: ${trace.samples
            .map(
              (t) =>
                `at ${t.atS} s ${t.targets.join(' ')} ${t.arrivalGaps.join('/')} (${t.loopLateMs}; ${t.inLast3s} in the 3 s before)`,
            )
            .join('; ')}`,
          `outcomes without a verdict of the finished searches: ${
            Object.entries(level.unanswered)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ') || 'none'
          }`,
          ...(unfinished
            ? [`only ${level.completed} of ${searches} finished within the level's deadline`]
            : []),
        ],
        settings: {
          ...API_OVERRIDES,
          ...ctx.serverOverrides,
          why: 'every client is 127.0.0.1; the limits would otherwise refuse the load',
        },
      };
    } finally {
      await sim.child.stop();
    }
  },
};
