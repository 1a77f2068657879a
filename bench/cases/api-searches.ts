/**
 * Case 3: searches through the API (POST /api/search, then polling once a
 * second), 1, 10 and 50 at once, half of them professional: how long each
 * takes to complete, searches per minute, and the server's CPU and memory.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { loadConfig, SETTINGS } from '../../src/config.js';
import type { LatencyProfile } from '../../src/sim/latency.js';
import type { BenchCase, BenchContext } from '../context.js';
import { callJson, type SearchState, startSearch } from '../http-client.js';
import { ACCOUNT_POOL, loadPlatformSet } from '../platform-set.js';
import { identitiesOf, politenessBound, sentBound } from '../politeness.js';
import { measure } from '../process-usage.js';
import { METRICS_HEADERS } from '../prometheus.js';
import type { Row } from '../results.js';
import { type ServerLauncher, type ServerOverrides, singleProcessServer } from '../server.js';
import { distribution, percentile } from '../stats.js';
import { type ThreadCpuMs, threadCpuDelta } from '../thread-cpu.js';

export interface ApiLevel {
  readonly searches: number;
  readonly platforms: number;
  /** From the first search created to the last completed, by the server's clock (ms). */
  readonly makespanMs: number;
  /** Completion time (created to completed) of every search (ms). */
  readonly all: readonly number[];
  readonly free: readonly number[];
  readonly professional: readonly number[];
  readonly errors: number;
  /** Searches that finished before the level's deadline. */
  readonly completed: number;
  readonly perMinute: number;
  readonly cpuMs: number;
  readonly cpuMsPerSearch: number;
  readonly cpuMsPer1000: number;
  readonly cores: number;
  /** The server's CPU by thread group per 1000 checks over the measured searches (null: several processes, or no /proc). */
  readonly threadMsPer1000: ThreadCpuMs | null;
  readonly baseRssMb: number;
  readonly maxRssMb: number;
  /** makespan / the single search's completion time (set once level 1 is known). */
  vsSingle: number | null;
  /** The time the request budgets allow these searches (politeness.ts), and makespan / it. */
  readonly boundMs: number;
  /** The origin that sets the bound, and the requests it gets. */
  readonly boundBy: string;
  readonly vsBound: number;
  /**
   * The same bound over the requests the simulated sites received during the level
   * (controls, retries and re-checks included): its origin and requests, and makespan / it.
   */
  readonly sentBoundBy: string;
  readonly vsSentBound: number;
  /** 429 answers the simulated sites sent meanwhile (their per-address limits). */
  readonly rateLimited: number;
  /** Control checks sent during the level, and per search: the requests they add. */
  readonly controls: number;
  readonly controlsPerSearch: number;
  /** The service's estimate ÷ the actual completion time, median over the finished searches. */
  readonly estimateRatio: number | null;
  /**
   * The fewest platforms a finished search of the level had answered (hit or miss), and the
   * most it had without a verdict (unknown, budget_exhausted included): with as many answers
   * as one search alone, waiting cost no answer (null: none finished).
   */
  readonly answeredFewest: number | null;
  readonly unknownMost: number | null;
  /** The finished searches' outcomes without a verdict, counted by "status/reason platform". */
  readonly unanswered: Readonly<Record<string, number>>;
}

/**
 * Rate limits count by client address and every benchmark client is 127.0.0.1:
 * the search and read limits are raised so they measure the server, not the limiter.
 */
export const API_OVERRIDES: ServerOverrides = {
  freeLimit: 1_000_000,
  proLimit: 1_000_000,
  readLimit: 1_000_000,
};

/** The defaults that shape an API case's figures, named in its notes. */
const DEFAULTS_SHOWN = [
  'maxRunningSearches',
  'concurrency',
  'perHost',
  'budgetPerSecond',
  'budgetBurst',
  'timeoutMs',
] as const;

/** A setting as the server runs it: overridden, else its default (config.ts works out a default per identity). */
export function settingOf(
  overrides: ServerOverrides,
  name: 'budgetPerSecond' | 'budgetBurst' | 'timeoutMs' | 'concurrency',
): number {
  return Number(loadConfig(overrides, {})[name]);
}

const POLL_EVERY_MS = 1000;
/** Not in ACCOUNT_POOL: the warm-up search leaves no cached outcome for a measured one. */
const WARM_UP_USERNAME = 'scoutwarmup';
/**
 * How long a level may take. With the default settings 50 searches need far
 * longer than the benchmark's 10 minutes allow; past this, the level stops
 * and reports how many finished, and its time to finish all as a lower bound.
 */
const LEVEL_DEADLINE_MS = 150_000;
const QUICK_LEVEL_DEADLINE_MS = 90_000;

/**
 * The levels case 3 runs. `BENCH_API_LEVELS=50` (a comma-separated list) runs only those,
 * e.g. to compare the 50-at-once server's CPU between two builds without the other levels.
 */
function levels(quick: boolean): number[] {
  const only = process.env.BENCH_API_LEVELS;
  if (only) {
    const chosen = only.split(',').map((s) => Number(s.trim()));
    if (chosen.some((n) => !Number.isInteger(n) || n < 1))
      throw new Error(`BENCH_API_LEVELS must list whole numbers of searches; received ${only}`);
    return chosen;
  }
  return quick ? [1, 10] : [1, 10, 50];
}

/** The levels measured so far in this run (filled by case 3, read by case 4). */
export function apiLevelsMeasured(ctx: BenchContext): Promise<ApiLevel[]> {
  return ctx.memo('api-levels', async () => []);
}

/**
 * Starts a search (on `platforms`, ids, when given) and polls it until it ends
 * or `deadline` (Date.now() value, or a function giving it at each poll) passes.
 */
export async function runOneSearch(
  pool: Pool,
  username: string,
  apiKey: string | undefined,
  deadline: number | (() => number),
  platforms?: readonly string[],
): Promise<{
  queryId: string;
  state: SearchState;
  total: number;
  estimatedMs: number;
  finished: boolean;
  error?: string;
}> {
  const started = await startSearch(pool, username, apiKey, platforms);
  const estimatedMs = started.estimatedTime * 1000;
  const headers: Record<string, string> = apiKey ? { 'x-api-key': apiKey } : {};
  for (;;) {
    await sleep(POLL_EVERY_MS);
    const answer = await callJson<SearchState>(
      pool,
      'GET',
      `/api/search?id=${started.queryId}`,
      undefined,
      headers,
    );
    const seen = { queryId: started.queryId, state: answer.body, total: started.totalPlatforms, estimatedMs };
    if (answer.status !== 200) return { ...seen, finished: false, error: `poll answered ${answer.status}` };
    if (answer.body.status !== 'running') return { ...seen, finished: true };
    if (Date.now() >= (typeof deadline === 'number' ? deadline : deadline()))
      return { ...seen, finished: false };
  }
}

export async function measureApiLevel(
  ctx: BenchContext,
  searches: number,
  overrides: ServerOverrides = {},
  launch: ServerLauncher = singleProcessServer,
  /** Egress identities over the whole deployment (all workers'). */
  identities = identitiesOf(overrides),
  /** The simulated web's latency profile; `launch` must use the same. */
  profile: LatencyProfile = 'realistic',
  /**
   * A warm service: one search (a name outside the measured ones, so no cached
   * outcome applies) runs to the end before the measured ones start, so the
   * store knows the platforms' answer times and the estimate has seen a search.
   * A number N: N searches at once run to the end first (names of the account
   * pool after the measured ones: as many hits, none cached for a measured
   * name), so connections, TLS sessions and compiled code are as a service
   * finds them after running a while: what a sustained rate meets.
   */
  warmUp: boolean | number = false,
): Promise<ApiLevel> {
  const warmSearches = typeof warmUp === 'number' ? warmUp : 0;
  if (searches + warmSearches > ACCOUNT_POOL.length - 1)
    throw new Error(
      `${searches} measured and ${warmSearches} warm-up searches need more names than the pool's`,
    );
  ctx.log(
    `${searches} concurrent API searches, ${profile} latency${warmUp === true ? ', warm service' : warmSearches > 0 ? `, after ${warmSearches} at once` : ''}`,
  );
  const sim = await ctx.sim('builtin', profile);
  const server = await launch(ctx, { ...API_OVERRIDES, ...overrides });
  const pool = new Pool(server.url, { connections: Math.max(4, searches) });
  try {
    if (warmUp === true)
      await runOneSearch(pool, WARM_UP_USERNAME, undefined, Date.now() + LEVEL_DEADLINE_MS);
    const warmUntil = Date.now() + LEVEL_DEADLINE_MS;
    await Promise.all(
      Array.from({ length: warmSearches }, (_, i) =>
        runOneSearch(
          pool,
          ACCOUNT_POOL[1 + searches + i]!,
          i % 2 === 1 ? server.proKey : undefined,
          warmUntil,
        ),
      ),
    );
    const limitedBefore = await sim.child.request<number>('rateLimited');
    const sentBefore = await sim.child.request<Record<string, number>>('siteRequests');
    const deadline = Date.now() + (ctx.quick ? QUICK_LEVEL_DEADLINE_MS : LEVEL_DEADLINE_MS);
    const threadsBefore = (await server.threadCpu?.()) ?? null;
    const {
      result: results,
      usage,
      before,
    } = await measure(
      () => server.usage(),
      () =>
        Promise.all(
          Array.from({ length: searches }, async (_, i) => {
            const professional = i % 2 === 1;
            const username = ACCOUNT_POOL[(i + 1) % ACCOUNT_POOL.length]!;
            const r = await runOneSearch(pool, username, professional ? server.proKey : undefined, deadline);
            return { ...r, professional };
          }),
        ),
    );
    // Taken as the searches end, before the figures and outcomes below are read from the server.
    const stoppedAt = Date.now();
    const threads = threadCpuDelta(threadsBefore, (await server.threadCpu?.()) ?? null);
    const rateLimited = (await sim.child.request<number>('rateLimited')) - limitedBefore;
    const sentAfter = await sim.child.request<Record<string, number>>('siteRequests');
    const sent = Object.fromEntries(
      Object.entries(sentAfter).map(([site, n]) => [site, n - (sentBefore[site] ?? 0)]),
    );
    const controls = await controlsSent(server.url);
    const unanswered = await unansweredOutcomes(pool, results);
    const created = results.map((r) => Date.parse(r.state.createdAt));
    // A search still running at the deadline counts as ending then: its time is a lower bound.
    const ended = results.map((r) => (r.state.completedAt ? Date.parse(r.state.completedAt) : stoppedAt));
    const times = results.map((_, i) => ended[i]! - created[i]!);
    const makespanMs = Math.max(...ended) - Math.min(...created);
    const checks = results.reduce((n, r) => n + (r.finished ? r.total : r.state.progress.checked), 0);
    const completed = results.filter((r) => r.finished).length;
    const boundOptions = {
      identities,
      budget: {
        perSecond: settingOf(overrides, 'budgetPerSecond'),
        burst: settingOf(overrides, 'budgetBurst'),
      },
      profile,
      seed: ctx.seed,
      timeoutMs: settingOf(overrides, 'timeoutMs'),
    };
    const searched = loadPlatformSet('builtin', ctx.seed).searched;
    const { boundMs, origin, requests } = politenessBound(searched, { ...boundOptions, searches });
    const sentBy = sentBound(searched, sent, boundOptions);
    return {
      searches,
      platforms: results[0]!.total,
      makespanMs,
      all: times,
      free: times.filter((_, i) => !results[i]!.professional),
      professional: times.filter((_, i) => results[i]!.professional),
      errors: results.filter((r) => r.error !== undefined || r.state.status === 'error').length,
      completed,
      perMinute: (completed / makespanMs) * 60_000,
      cpuMs: usage.cpuMs,
      // Per search's worth of checks, so a level stopped at its deadline is not flattered.
      cpuMsPerSearch: (usage.cpuMs / checks) * results[0]!.total,
      cpuMsPer1000: (usage.cpuMs / checks) * 1000,
      cores: usage.cores,
      threadMsPer1000:
        threads &&
        (Object.fromEntries(
          Object.entries(threads).map(([group, ms]) => [group, (ms / checks) * 1000]),
        ) as ThreadCpuMs),
      baseRssMb: before.rssBytes / 1_048_576,
      maxRssMb: usage.maxRssMb,
      vsSingle: null,
      boundMs,
      boundBy: `${origin} (${requests} requests)`,
      vsBound: makespanMs / boundMs,
      sentBoundBy: `${sentBy.origin} (${sentBy.requests} requests, ${(sentBy.boundMs / 1000).toFixed(1)} s)`,
      vsSentBound: makespanMs / sentBy.boundMs,
      rateLimited,
      controls,
      controlsPerSearch: controls / searches,
      answeredFewest: finishedRange(results, (p) => p.answered)?.least ?? null,
      unknownMost: finishedRange(results, (p) => p.unknown)?.most ?? null,
      unanswered,
      estimateRatio:
        completed === 0
          ? null
          : percentile(
              results.flatMap((r, i) => (r.finished ? [r.estimatedMs / times[i]!] : [])),
              0.5,
            )!,
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

/**
 * The outcomes without a verdict of the finished searches, read with include=all once they
 * ended, counted by "reason platform": which platforms waiting or load cost. Every unknown,
 * and every error (a timeout, a transport error) on a platform another search of the level
 * answered: a platform that never answers errs in every search, which is the platform's,
 * not the load's.
 */
async function unansweredOutcomes(
  pool: Pool,
  results: readonly { readonly queryId: string; readonly finished: boolean; readonly state: SearchState }[],
): Promise<Record<string, number>> {
  type Result = { platformId: string; status: string; reason?: string; evidence?: { rule?: string } };
  const searches: Result[][] = [];
  for (const r of results) {
    if (!r.finished) continue;
    const answer = await callJson<{ results: Result[] }>(
      pool,
      'GET',
      `/api/search?id=${r.queryId}&include=all`,
    );
    if (answer.status === 200) searches.push(answer.body.results);
  }
  const answeredSomewhere = new Set(
    searches.flatMap((outcomes) =>
      outcomes.filter((o) => o.status === 'hit' || o.status === 'miss').map((o) => o.platformId),
    ),
  );
  const counts: Record<string, number> = {};
  for (const outcomes of searches) {
    for (const o of outcomes) {
      const loadError = o.status === 'error' && answeredSomewhere.has(o.platformId);
      if (o.status !== 'unknown' && !loadError) continue;
      // A check the budget held back says how long it waited for a send slot.
      const waited = /waited (\d+) ms/.exec(o.evidence?.rule ?? '')?.[1];
      const reason = `${loadError ? 'error ' : ''}${o.reason ?? 'no reason'}`;
      const key = `${reason} ${o.platformId}${waited ? ` (waited ${waited} ms)` : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return counts;
}

/** The least and most of `read` over the finished searches' last progress (null: none finished, or no figure). */
function finishedRange(
  results: readonly { readonly finished: boolean; readonly state: SearchState }[],
  read: (progress: SearchState['progress']) => number | undefined,
): { least: number; most: number } | null {
  const values = results.flatMap((r) => {
    const v = r.finished ? read(r.state.progress) : undefined;
    return v === undefined ? [] : [v];
  });
  return values.length === 0 ? null : { least: Math.min(...values), most: Math.max(...values) };
}

/**
 * Control checks the service has sent: one drift gauge series per platform and
 * identity that had one (the store's records, whichever process sent it).
 */
async function controlsSent(serverUrl: string): Promise<number> {
  const text = await fetch(`${serverUrl}/metrics`, { headers: METRICS_HEADERS }).then((r) => r.text());
  return text.split('\n').filter((line) => line.startsWith('userscout_platform_rule_drift{')).length;
}

function levelRow(level: ApiLevel): Row {
  const all = distribution(level.all)!;
  return {
    label: `${level.searches} at once`,
    values: {
      completed: level.completed,
      perMinute: level.perMinute,
      p50: Math.round(all.p50),
      p95: Math.round(all.p95),
      p99: Math.round(all.p99),
      makespan: Math.round(level.makespanMs),
      vsSingle: level.vsSingle,
      boundMs: Math.round(level.boundMs),
      vsBound: level.vsBound,
      vsSentBound: level.vsSentBound,
      rateLimited: level.rateLimited,
      controlsPerSearch: level.controlsPerSearch,
      estimateRatio: level.estimateRatio,
      answeredFewest: level.answeredFewest,
      unknownMost: level.unknownMost,
      freeP50: level.free.length ? Math.round(percentile(level.free, 0.5)!) : null,
      proP50: level.professional.length ? Math.round(percentile(level.professional, 0.5)!) : null,
      proP95: level.professional.length ? Math.round(percentile(level.professional, 0.95)!) : null,
      freeP95: level.free.length ? Math.round(percentile(level.free, 0.95)!) : null,
      errors: level.errors,
      cpuMsPerSearch: Math.round(level.cpuMsPerSearch),
      cpuMsPer1000: Math.round(level.cpuMsPer1000),
      cores: level.cores,
      httpThreadMsPer1000: level.threadMsPer1000 && Math.round(level.threadMsPer1000.http),
      searchThreadMsPer1000: level.threadMsPer1000 && Math.round(level.threadMsPer1000.search),
      v8ThreadsMsPer1000: level.threadMsPer1000 && Math.round(level.threadMsPer1000.v8),
      otherThreadsMsPer1000:
        level.threadMsPer1000 && Math.round(level.threadMsPer1000.pool + level.threadMsPer1000.other),
      maxRssMb: Math.round(level.maxRssMb),
    },
  };
}

/** N at once against one search alone: 3 x with one egress identity, 1.5 x with two or more. */
export function concurrencyTarget(identities: number): number {
  return identities >= 2 ? 1.5 : 3;
}
export const BOUND_TARGET = 1.15;

export const apiSearchesCase: BenchCase = {
  id: '3',
  title: 'searches through the API (POST, then polling), realistic latency',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const measured = await apiLevelsMeasured(ctx);
    for (const n of levels(ctx.quick)) {
      if (!measured.some((l) => l.searches === n))
        measured.push(
          await measureApiLevel(ctx, n, ctx.serverOverrides, undefined, undefined, undefined, true),
        );
    }
    const single = measured.find((l) => l.searches === 1);
    for (const level of measured) level.vsSingle = single ? level.makespanMs / single.makespanMs : null;
    const top = measured[measured.length - 1]!;
    const proP95 = percentile(top.professional, 0.95);
    const freeP95 = percentile(top.free, 0.95);
    const unfinished = measured.filter((l) => l.completed < l.searches);
    const target = concurrencyTarget(identitiesOf(ctx.serverOverrides));
    const bound = (l: ApiLevel) => (l.completed < l.searches ? '>= ' : '');
    return {
      id: this.id,
      title: this.title,
      columns: [
        { key: 'completed', title: 'done', better: 'higher' },
        { key: 'perMinute', title: 'searches/min', better: 'higher', digits: 1 },
        { key: 'p50', title: 'p50 ms', better: 'lower' },
        { key: 'p95', title: 'p95 ms', better: 'lower' },
        { key: 'p99', title: 'p99 ms', better: 'lower' },
        { key: 'makespan', title: 'all done ms', better: 'lower' },
        { key: 'vsSingle', title: 'x single', better: 'lower', digits: 2 },
        { key: 'boundMs', title: 'politeness bound ms', better: 'none' },
        { key: 'vsBound', title: 'x bound', better: 'lower', digits: 2 },
        { key: 'vsSentBound', title: 'x bound of requests sent', better: 'lower', digits: 2 },
        { key: 'rateLimited', title: '429s', better: 'lower' },
        { key: 'controlsPerSearch', title: 'control requests/search', better: 'lower', digits: 2 },
        { key: 'estimateRatio', title: 'estimate ÷ actual', better: 'none', digits: 2 },
        { key: 'answeredFewest', title: 'answered (fewest a search)', better: 'higher' },
        { key: 'unknownMost', title: 'unknown (most a search)', better: 'lower' },
        { key: 'freeP50', title: 'free p50', better: 'lower' },
        { key: 'proP50', title: 'pro p50', better: 'lower' },
        { key: 'freeP95', title: 'free p95', better: 'lower' },
        { key: 'proP95', title: 'pro p95', better: 'lower' },
        { key: 'errors', title: 'errors', better: 'lower' },
        { key: 'cpuMsPerSearch', title: 'CPU ms/search', better: 'lower' },
        { key: 'cpuMsPer1000', title: 'CPU ms/1000 checks', better: 'lower' },
        { key: 'cores', title: 'cores', better: 'lower', digits: 2 },
        { key: 'httpThreadMsPer1000', title: 'HTTP thread ms/1000', better: 'lower' },
        { key: 'searchThreadMsPer1000', title: 'search thread ms/1000', better: 'lower' },
        { key: 'v8ThreadsMsPer1000', title: 'V8 helper threads ms/1000', better: 'lower' },
        { key: 'otherThreadsMsPer1000', title: 'other threads ms/1000', better: 'lower' },
        { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
      ],
      rows: measured.map(levelRow),
      targets: [
        ...measured.map((l) => ({
          text: `${l.searches} at once all done within ${BOUND_TARGET} x the politeness bound, with no 429 (${bound(l)}${l.vsBound.toFixed(2)}, ${l.rateLimited} 429s)`,
          value: l.vsBound,
          met: l.completed === l.searches && l.vsBound <= BOUND_TARGET && l.rateLimited === 0,
        })),
        {
          text: `${top.searches} at once, each with as many answers as one search alone (fewest answered ${top.answeredFewest ?? '-'}, alone ${single?.answeredFewest ?? '-'})`,
          value: top.answeredFewest,
          met:
            top.answeredFewest === null || single?.answeredFewest == null
              ? null
              : top.answeredFewest >= single.answeredFewest,
        },
        {
          text: `${top.searches} at once all done within ${target} x one search alone (${bound(top)}${top.vsSingle?.toFixed(2) ?? '-'})`,
          value: top.vsSingle,
          met: top.vsSingle === null ? null : top.vsSingle <= target,
        },
        {
          text: `professional never slower than free under load (p95 ${Math.round(proP95 ?? Number.NaN)} vs ${Math.round(freeP95 ?? Number.NaN)} ms)`,
          value: proP95 ?? null,
          met: proP95 === undefined || freeP95 === undefined ? null : proP95 <= freeP95,
        },
      ],
      notes: [
        ...unfinished.map(
          (l) =>
            `${l.searches} at once: only ${l.completed} finished within the ${(ctx.quick ? QUICK_LEVEL_DEADLINE_MS : LEVEL_DEADLINE_MS) / 1000} s deadline; its times, 'all done' and 'x single' are lower bounds`,
        ),
        `politeness bound = for each origin, searches x its platforms ÷ (its budget x ${identitiesOf(ctx.serverOverrides)} identit${identitiesOf(ctx.serverOverrides) === 1 ? 'y' : 'ies'}) + its slowest latency (the timeout when one never answers), the largest over the origins; every searched platform counted (a username rule may spare a few); 429s = the simulated sites' answers over their seeded per-address limits`,
        `outcomes without a verdict of the finished searches, by reason and platform (every unknown; errors, marked so, only on platforms another search of the level answered): ${measured
          .map(
            (l) =>
              `${l.searches} at once: ${
                Object.entries(l.unanswered)
                  .map(([k, n]) => `${k} ${n}`)
                  .join(', ') || 'none'
              }`,
          )
          .join('; ')}`,
        `the bound is set by ${measured.map((l) => `${l.searches} at once: ${l.boundBy}`).join('; ')}`,
        `bound of requests sent = the same pacing over the requests the simulated sites received during the level (control checks, retries and linked re-checks included), a diagnosis: ${measured.map((l) => `${l.searches} at once: ${l.sentBoundBy}`).join('; ')}`,
        `control requests/search = control checks (a name that cannot exist, sent alongside a platform's first check, then at most once per ${SETTINGS.controlWindowMs.default / 60_000} min per platform and identity) ÷ searches; the server is fresh per row, so each platform checked costs one: ${measured.map((l) => `${l.searches} at once: ${l.controls}`).join('; ')}`,
        'estimate ÷ actual = the estimatedTime POST /api/search answered ÷ the search’s completion time, median over the finished searches (1 is exact; under 1 the estimate was short)',
        `completion = completedAt - createdAt as the server reports them; each client polls once a second; ${top.platforms} platforms per search, each search a different username`,
        "by thread (the server's /proc/self/task/*/stat, read at the start and end of the measured searches, ms per 1000 checks; bench/thread-cpu.ts): HTTP thread = the main thread: POSTs, polls, live events received, the API's own code; search thread = the worker thread(s) running searches: the engine (requests, TLS, classification), the store's writes of outcomes, statistics and cache entries, events sent — the writes are not separable here (about 25-40 of it by a replay, bench/results/history.md); V8 helper threads = V8's platform workers (concurrent GC marking and sweeping, background compiles) for both isolates; other = libuv's pool and Node's idle helpers (inspector, module loader)",
        ...measured.flatMap((l) =>
          l.threadMsPer1000
            ? [
                `${l.searches} at once: the API's own share (HTTP thread) ${Math.round(l.threadMsPer1000.http)} of ${Math.round(l.cpuMsPer1000)} ms per 1000 checks; search thread + V8 helpers (engine and store writes) ${Math.round(l.threadMsPer1000.search + l.threadMsPer1000.v8)}`,
              ]
            : [],
        ),
        'a warm service: each row has a fresh server process, which first runs one search to the end (another name, not measured), so its store knows the answer times and its estimate has seen one finished search; CPU and peak RSS are the server process only, over the measured searches; clients run in the benchmark process',
        Object.keys(ctx.serverOverrides).length > 0
          ? `server settings changed with --server: ${JSON.stringify(ctx.serverOverrides)}`
          : `the server runs its defaults (${DEFAULTS_SHOWN.map((k) => `${k} ${String(loadConfig(ctx.serverOverrides, {})[k])}`).join(', ')}) except the raised rate limits`,
      ],
      settings: {
        ...API_OVERRIDES,
        ...ctx.serverOverrides,
        why: 'every client is 127.0.0.1; the limits would otherwise refuse the load',
      },
    };
  },
};
