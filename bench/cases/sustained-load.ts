/**
 * Case 8: sustained professional load on one egress identity. Professional
 * searches start through the API at a steady rate (0.8, 1 and 1.5 times the
 * capacity model's prediction for one identity) against the simulated web
 * with realistic latency and its sites' per-address rate limits: whether the
 * service keeps up (completion times, checks held back by the budgets, 429s),
 * next to the model's prediction (bench/politeness.ts, docs/deployment.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { SETTINGS } from '../../src/config.js';
import type { BenchCase, BenchContext } from '../context.js';
import { callJson } from '../http-client.js';
import { ACCOUNT_POOL, loadPlatformSet } from '../platform-set.js';
import { sustainedRate } from '../politeness.js';
import { measure } from '../process-usage.js';
import type { Row } from '../results.js';
import { singleProcessServer } from '../server.js';
import { distribution } from '../stats.js';
import { API_OVERRIDES, runOneSearch } from './api-searches.js';

/**
 * Offered load, as multiples of the model's prediction: with headroom (the
 * share docs/deployment.md plans with), at it, and over it.
 */
const LOADS = [0.8, 1, 1.5] as const;
/** The share of the model's rate a deployment is planned for (docs/deployment.md). */
const PLANNED = 0.8;
/**
 * Searches running at once on the server: enough that the request budgets,
 * not the running slots, are the bound (a slot rate of 32 ÷ ~11 s is several
 * times the one identity's budget rate).
 */
const MAX_RUNNING = 32;

function windowMs(quick: boolean): number {
  return quick ? 15_000 : 25_000;
}

interface LoadRow {
  readonly offeredPerHour: number;
  readonly started: number;
  readonly completed: number;
  readonly times: readonly number[];
  /** Searches with at least one check the budgets held back (budget_exhausted). */
  readonly held: number;
  readonly heldChecks: number;
  readonly rateLimited: number;
  readonly errors: number;
  readonly cpuMsPerSearch: number;
  readonly cores: number;
}

async function offer(
  ctx: BenchContext,
  perHour: number,
  overrides: Record<string, unknown>,
): Promise<LoadRow> {
  const sim = await ctx.sim('builtin', 'realistic');
  const server = await singleProcessServer(ctx, overrides);
  const pool = new Pool(server.url, { connections: 64 });
  try {
    const intervalMs = 3_600_000 / perHour;
    const count = Math.max(1, Math.floor(windowMs(ctx.quick) / intervalMs));
    const limitedBefore = await sim.child.request<number>('rateLimited');
    const deadline = Date.now() + windowMs(ctx.quick) + 90_000;
    const { result, usage } = await measure(
      () => server.usage(),
      () =>
        Promise.all(
          Array.from({ length: count }, async (_, i) => {
            // Open loop: each search starts on its own schedule, whether or not earlier ones are done.
            await sleep(i * intervalMs);
            const username = ACCOUNT_POOL[i % ACCOUNT_POOL.length]!;
            const r = await runOneSearch(pool, username, server.proKey, deadline);
            let heldChecks = 0;
            if (r.finished) {
              const all = await callJson<{ results: { reason?: string }[] }>(
                pool,
                'GET',
                `/api/search?id=${r.queryId}&include=all`,
                undefined,
                { 'x-api-key': server.proKey },
              );
              heldChecks = all.body.results.filter((o) => o.reason === 'budget_exhausted').length;
            }
            return { ...r, heldChecks };
          }),
        ),
    );
    const rateLimited = (await sim.child.request<number>('rateLimited')) - limitedBefore;
    const done = result.filter((r) => r.finished);
    const checks = result.reduce((n, r) => n + (r.finished ? r.total : r.state.progress.checked), 0);
    return {
      offeredPerHour: perHour,
      started: count,
      completed: done.length,
      times: done.map((r) => Date.parse(r.state.completedAt!) - Date.parse(r.state.createdAt)),
      held: done.filter((r) => r.heldChecks > 0).length,
      heldChecks: done.reduce((n, r) => n + r.heldChecks, 0),
      rateLimited,
      errors: result.filter((r) => r.error !== undefined || r.state.status === 'error').length,
      cpuMsPerSearch: checks > 0 ? (usage.cpuMs / checks) * (result[0]?.total ?? 0) : 0,
      cores: usage.cores,
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

function loadRow(multiple: number, row: LoadRow): Row {
  const t = distribution(row.times);
  return {
    label: `${multiple} x the model`,
    values: {
      offeredPerHour: Math.round(row.offeredPerHour),
      started: row.started,
      completed: row.completed,
      p50: t ? Math.round(t.p50) : null,
      p95: t ? Math.round(t.p95) : null,
      max: t ? Math.round(t.max) : null,
      held: row.held,
      heldChecks: row.heldChecks,
      rateLimited: row.rateLimited,
      errors: row.errors,
      cpuMsPerSearch: Math.round(row.cpuMsPerSearch),
      cores: row.cores,
    },
  };
}

export const sustainedLoadCase: BenchCase = {
  id: '8',
  title: 'sustained professional load on one egress identity, realistic latency, sites rate-limiting',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const budget = { perSecond: SETTINGS.budgetPerSecond.default, burst: SETTINGS.budgetBurst.default };
    const model = sustainedRate(loadPlatformSet('builtin', ctx.seed).searched, { identities: 1, budget });
    const overrides = { ...API_OVERRIDES, maxRunningSearches: MAX_RUNNING, ...ctx.serverOverrides };
    const rows: LoadRow[] = [];
    for (const multiple of LOADS) {
      ctx.log(
        `case 8: professional searches at ${multiple} x ${Math.round(model.perHour)} an hour, one identity`,
      );
      rows.push(await offer(ctx, model.perHour * multiple, overrides));
    }
    const planned = rows[LOADS.indexOf(PLANNED)]!;
    const keptUp = planned.completed === planned.started && planned.held === 0 && planned.rateLimited === 0;
    return {
      id: this.id,
      title: this.title,
      columns: [
        { key: 'offeredPerHour', title: 'offered/hour', better: 'none' },
        { key: 'started', title: 'started', better: 'none' },
        { key: 'completed', title: 'done', better: 'higher' },
        { key: 'p50', title: 'p50 ms', better: 'lower' },
        { key: 'p95', title: 'p95 ms', better: 'lower' },
        { key: 'max', title: 'max ms', better: 'lower' },
        { key: 'held', title: 'searches with checks held', better: 'lower' },
        { key: 'heldChecks', title: 'checks held (budget_exhausted)', better: 'lower' },
        { key: 'rateLimited', title: '429s', better: 'lower' },
        { key: 'errors', title: 'errors', better: 'lower' },
        { key: 'cpuMsPerSearch', title: 'server CPU ms/search', better: 'lower' },
        { key: 'cores', title: 'server cores', better: 'none', digits: 2 },
      ],
      rows: LOADS.map((m, i) => loadRow(m, rows[i]!)),
      targets: [
        {
          text: `one identity sustains ${PLANNED} x the model's ${Math.round(model.perHour)} searches an hour: every search done, no check held back, no 429`,
          value: planned.completed,
          met: keptUp,
        },
      ],
      notes: [
        `model (docs/deployment.md): searches/hour = 3600 x min over origins of budget x identities ÷ platforms on the origin = 3600 x ${budget.perSecond} x 1 ÷ ${model.platforms} (${model.origin}) = ${Math.round(model.perHour)}`,
        `open loop: a professional search starts every ${(3_600_000 / model.perHour / 1000).toFixed(2)} s (÷ the multiple) for ${windowMs(ctx.quick) / 1000} s, whatever the earlier ones are doing; each polled once a second until done`,
        'at and above the model the busiest origin’s budget has no slack: its checks wait for a slot, up to their deadline, then end as budget_exhausted (held) rather than being sent over the budget; when the server’s CPU binds first (a busy machine), searches slow down instead (p50 grows) and fewer checks are held',
        `server: one process, one identity (the default route), default budgets, maxRunningSearches ${MAX_RUNNING} so the running slots are not the bound; 429s = the simulated sites' answers over their seeded per-address limits (5-10/s)`,
      ],
      settings: { ...overrides },
    };
  },
};
