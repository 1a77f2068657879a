/**
 * Case 6: cluster mode, sustained. One API process and 1 worker with 1 egress
 * identity, then 2 workers with 2 loopback source addresses each, sharing
 * Redis (and its request budgets), each kept supplied with professional
 * searches (more in flight than its workers run, the rest queued) against the
 * simulated web with realistic latency: searches a minute in a steady window
 * after a warm-up, next to the capacity model's prediction for the row
 * (request budgets, running and check slots, the machine's CPU) and what bounds it. Over
 * the built-in catalogue, then over a subset that keeps its busiest origin
 * whole (archive.org's 9 platforms), where the request budgets, not this
 * machine's CPU, set the pace: the rows the scaling target reads.
 */
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Platform } from '../../src/catalogue/platform.js';
import { type Capacity, capacity } from '../capacity.js';
import {
  benchRedisUrl,
  clusterServer,
  redisAnswers,
  redisCalls,
  redisCpuMs,
  workerEgress,
} from '../cluster.js';
import type { BenchCase, BenchContext } from '../context.js';
import { busyCores, readMachineTimes } from '../machine-usage.js';
import { ACCOUNT_POOL, budgetBoundSubset, loadPlatformSet, physicalLimit } from '../platform-set.js';
import { runningWithinDeadline, sustainedRate } from '../politeness.js';
import { usageDelta } from '../process-usage.js';
import { METRICS_HEADERS, metricSum } from '../prometheus.js';
import type { Row } from '../results.js';
import type { ServerHandle, ServerOverrides } from '../server.js';
import { distribution, perMinuteWithin } from '../stats.js';
import { keepInFlight } from '../steady-load.js';
import { API_OVERRIDES, settingOf } from './api-searches.js';

/** The platforms a row's searches cover: a default search, or the budget-bound subset. */
type PlatformChoice = 'catalogue' | 'subset';

interface Shape {
  readonly platforms: PlatformChoice;
  readonly workers: number;
  /** Egress identities of each worker (0: the default route, one identity shared by all). */
  readonly identities: number;
}

/** Deployments compared, over each platform choice. */
const DEPLOYMENTS = [
  { workers: 1, identities: 0 },
  { workers: 2, identities: 2 },
] as const;

/** 2 workers x 2 identities give at least this many times 1 worker x 1 identity. */
const SCALE_TARGET = 3.6;

/**
 * The subset: archive.org's 9 platforms and the first others of a default
 * search that answer within 3 s (none that never answers). 100 platforms cost
 * a twelfth of a full search's CPU, so 4 identities' budget rate (107 a minute)
 * fits in this machine's cores; a short latency floor keeps the running slots
 * from binding first.
 */
const SUBSET_SIZE = 100;
const SUBSET_MAX_LATENCY_MS = 3_000;

/** Searches in flight per search a worker runs: the surplus waits in the queue, so no worker waits for a client. */
const IN_FLIGHT_PER_RUNNING = 2;

interface Timing {
  /** Warm-up: until the first generation (workers x running) is done, between these bounds (ms). */
  readonly warmMinMs: number;
  readonly warmMaxMs: number;
  /** The measured window (ms). */
  readonly windowMs: number;
}

function timing(quick: boolean): Timing {
  return quick
    ? { warmMinMs: 6_000, warmMaxMs: 20_000, windowMs: 20_000 }
    : { warmMinMs: 12_000, warmMaxMs: 40_000, windowMs: 45_000 };
}

/** With --quick only the rows the target reads. */
function shapes(quick: boolean): Shape[] {
  const choices: PlatformChoice[] = quick ? ['subset'] : ['catalogue', 'subset'];
  return choices.flatMap((platforms) => DEPLOYMENTS.map((d) => ({ platforms, ...d })));
}

function shapeLabel(shape: Shape): string {
  const identities = Math.max(1, shape.identities);
  return `${shape.platforms}: ${shape.workers} worker${shape.workers > 1 ? 's' : ''} x ${identities} identit${identities > 1 ? 'ies' : 'y'}`;
}

interface Measured {
  readonly shape: Shape;
  readonly platforms: number;
  readonly running: number;
  readonly inFlight: number;
  readonly warmMs: number;
  readonly windowMs: number;
  readonly completed: number;
  readonly perMinute: number;
  /** Completion (created to completed, queue wait included) of the searches done in the window (ms). */
  readonly times: readonly number[];
  readonly model: Capacity;
  /** The shortest a search can take (the slots model's): its slowest platform, or the timeout (ms). */
  readonly searchMs: number;
  /** Checks the budgets held back (budget_exhausted) and checks done in the window, over the workers. */
  readonly held: number;
  readonly checks: number;
  /** 429s of the simulated sites over the whole row (warm-up included). */
  readonly rateLimited: number;
  readonly errors: number;
  /** CPU in the window (ms): the API process and workers, the simulated web, Redis. */
  readonly serverCpuMs: number;
  readonly simCpuMs: number;
  readonly redisCpuMs: number;
  readonly cores: number;
  /** Cores of the machine busy in the window, whoever used them. */
  readonly machineCores: number;
  readonly maxRssMb: number;
  readonly redisOps: number;
  /** The 1-minute load average at the window's end. */
  readonly load: number;
}

/** Checks the workers finished, and those held back by the budgets, since they started. */
async function checkCounts(server: ServerHandle): Promise<{ checks: number; held: number }> {
  const texts = await Promise.all(
    server.checkers.map((url) => fetch(`${url}/metrics`, { headers: METRICS_HEADERS }).then((r) => r.text())),
  );
  return {
    checks: texts.reduce((n, t) => n + metricSum(t, 'userscout_checks_total'), 0),
    held: texts.reduce(
      (n, t) => n + metricSum(t, 'userscout_checks_total', { status: 'unknown', reason: 'budget_exhausted' }),
      0,
    ),
  };
}

async function measureShape(
  ctx: BenchContext,
  shape: Shape,
  searched: readonly Platform[],
  overrides: ServerOverrides,
  redisUrl: string,
): Promise<Measured> {
  const { workers } = shape;
  const identitiesEach = Math.max(1, shape.identities);
  const budget = {
    perSecond: settingOf(overrides, 'budgetPerSecond'),
    burst: settingOf(overrides, 'budgetBurst'),
  };
  const timeoutMs = settingOf(overrides, 'timeoutMs');
  // --server maxRunningSearches=N explores other choices.
  const running =
    overrides.maxRunningSearches !== undefined
      ? Number(overrides.maxRunningSearches)
      : runningWithinDeadline(searched, { identities: identitiesEach, budget, timeoutMs });
  const inFlight = IN_FLIGHT_PER_RUNNING * workers * running;
  const { warmMinMs, warmMaxMs, windowMs } = timing(ctx.quick);
  ctx.log(
    `case 6: ${shapeLabel(shape)}, ${searched.length} platforms, ${running} running per worker, ${inFlight} in flight`,
  );
  const sim = await ctx.sim('builtin', 'realistic');
  const server = await clusterServer(
    workers,
    redisUrl,
    shape.identities,
  )(ctx, { ...overrides, maxRunningSearches: running });
  const pool = new Pool(server.url, { connections: inFlight + 4 });
  try {
    const limitedBefore = await sim.child.request<number>('rateLimited');
    const started = Date.now();
    const load = keepInFlight(pool, {
      inFlight,
      names: ACCOUNT_POOL,
      apiKey: server.proKey,
      platforms: shape.platforms === 'subset' ? searched.map((p) => p.id) : undefined,
    });
    // Warm-up: connections, TLS sessions, control checks and compiled code, and the queues at their level.
    while (
      Date.now() - started < warmMaxMs &&
      (load.done() < workers * running || Date.now() - started < warmMinMs)
    )
      await sleep(250);
    const warmMs = Date.now() - started;
    const readings = () =>
      Promise.all([
        server.usage(),
        sim.child.usage(),
        redisCpuMs(redisUrl),
        redisCalls(redisUrl),
        checkCounts(server),
        Promise.resolve(readMachineTimes()),
        Promise.resolve(Date.now()),
      ]);
    const before = await readings();
    const from = before[6];
    await sleep(windowMs);
    const after = await readings();
    const to = after[6];
    // A search done before `to` is seen at its next poll, a second at most later.
    const seen = await load.stop(to + 2_000);
    const rateLimited = (await sim.child.request<number>('rateLimited')) - limitedBefore;
    const ends = seen.flatMap((s) => (s.completedAt === undefined ? [] : [s.completedAt]));
    const inWindow = seen.filter(
      (s) => s.completedAt !== undefined && s.completedAt >= from && s.completedAt < to,
    );
    const completed = inWindow.length;
    const serverUse = usageDelta(before[0], after[0]);
    const simUse = usageDelta(before[1], after[1]);
    const redisCpu = after[2] - before[2];
    const cpuAll = serverUse.cpuMs + simUse.cpuMs + redisCpu;
    const limit = physicalLimit(searched, 'realistic', ctx.seed, timeoutMs);
    const searchMs = limit.limitMs;
    return {
      shape,
      platforms: searched.length,
      running,
      inFlight,
      warmMs,
      windowMs: to - from,
      completed,
      perMinute: perMinuteWithin(ends, from, to),
      times: inWindow.map((s) => s.completedAt! - s.createdAt),
      searchMs,
      model: capacity({
        budgetsPerHour: sustainedRate(searched, { identities: workers * identitiesEach, budget }).perHour,
        workers,
        running,
        searchMs,
        // As a worker runs it: the default grows with the worker's own identities.
        concurrency: settingOf(
          shape.identities > 0 ? { ...overrides, egress: workerEgress(1, shape.identities) } : overrides,
          'concurrency',
        ),
        checkSlotMs: limit.slotMs,
        cores: cpus().length,
        cpuMsPerSearch: completed > 0 ? cpuAll / completed : null,
      }),
      held: after[4].held - before[4].held,
      checks: after[4].checks - before[4].checks,
      rateLimited,
      errors: seen.filter((s) => s.error).length,
      serverCpuMs: serverUse.cpuMs,
      simCpuMs: simUse.cpuMs,
      redisCpuMs: redisCpu,
      cores: cpuAll / (to - from),
      machineCores: busyCores(before[5], after[5], cpus().length),
      maxRssMb: serverUse.maxRssMb,
      redisOps: after[3] - before[3],
      load: loadavg()[0]!,
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

/** The row of the same platforms with 1 worker x 1 identity. */
function baseOf(all: readonly Measured[], m: Measured): Measured | undefined {
  return all.find(
    (o) => o.shape.platforms === m.shape.platforms && o.shape.workers === 1 && o.shape.identities === 0,
  );
}

/** How long a search ran once a worker took it: its slots ÷ the rate (Little's law), every slot busy. */
function runMs(m: Measured): number | null {
  return m.perMinute > 0 ? Math.round((m.shape.workers * m.running * 60_000) / m.perMinute) : null;
}

function perSearch(value: number, m: Measured): number | null {
  return m.completed > 0 ? Math.round(value / m.completed) : null;
}

function clusterRow(m: Measured, all: readonly Measured[]): Row {
  const base = baseOf(all, m);
  const t = distribution(m.times);
  return {
    label: shapeLabel(m.shape),
    values: {
      platforms: m.platforms,
      workers: m.shape.workers,
      identities: Math.max(1, m.shape.identities),
      running: m.running,
      inFlight: m.inFlight,
      completed: m.completed,
      perMinute: m.perMinute,
      vsOneByOne: base ? m.perMinute / base.perMinute : null,
      budgets: m.model.budgets,
      slots: m.model.slots,
      checkSlots: m.model.checkSlots,
      cpu: m.model.cpu,
      vsModel: m.perMinute / m.model.perMinute,
      runMs: runMs(m),
      p50: t ? Math.round(t.p50) : null,
      p95: t ? Math.round(t.p95) : null,
      held: m.held,
      rateLimited: m.rateLimited,
      errors: m.errors,
      serverCpuMs: perSearch(m.serverCpuMs, m),
      simCpuMs: perSearch(m.simCpuMs, m),
      redisCpuMs: perSearch(m.redisCpuMs, m),
      cpuMsPer1000: m.checks > 0 ? Math.round((m.serverCpuMs / m.checks) * 1000) : null,
      cores: m.cores,
      machineCores: m.machineCores,
      maxRssMb: Math.round(m.maxRssMb),
      redisOpsPerSearch: perSearch(m.redisOps, m),
    },
  };
}

const COLUMNS = [
  { key: 'platforms', title: 'platforms', better: 'none' },
  { key: 'workers', title: 'workers', better: 'none' },
  { key: 'identities', title: 'identities each', better: 'none' },
  { key: 'running', title: 'running per worker', better: 'none' },
  { key: 'inFlight', title: 'in flight', better: 'none' },
  { key: 'completed', title: 'done in window', better: 'higher' },
  { key: 'perMinute', title: 'searches/min', better: 'higher', digits: 1 },
  { key: 'vsOneByOne', title: 'x 1 worker 1 identity', better: 'higher', digits: 2 },
  { key: 'budgets', title: 'model: budgets/min', better: 'none', digits: 1 },
  { key: 'slots', title: 'model: running slots/min', better: 'none', digits: 1 },
  { key: 'checkSlots', title: 'model: check slots/min', better: 'none', digits: 1 },
  { key: 'cpu', title: 'model: CPU/min', better: 'higher', digits: 1 },
  { key: 'vsModel', title: 'x model', better: 'higher', digits: 2 },
  { key: 'runMs', title: 'run ms (slots ÷ rate)', better: 'lower' },
  { key: 'p50', title: 'p50 ms', better: 'lower' },
  { key: 'p95', title: 'p95 ms', better: 'lower' },
  { key: 'held', title: 'checks held', better: 'lower' },
  { key: 'rateLimited', title: '429s', better: 'lower' },
  { key: 'errors', title: 'errors', better: 'lower' },
  { key: 'serverCpuMs', title: 'API+workers CPU ms/search', better: 'lower' },
  { key: 'simCpuMs', title: 'sim CPU ms/search', better: 'lower' },
  { key: 'redisCpuMs', title: 'Redis CPU ms/search', better: 'lower' },
  { key: 'cpuMsPer1000', title: 'API+workers CPU ms/1000 checks', better: 'lower' },
  { key: 'cores', title: 'cores (all)', better: 'none', digits: 2 },
  { key: 'machineCores', title: 'machine cores busy', better: 'none', digits: 2 },
  { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
  { key: 'redisOpsPerSearch', title: 'Redis ops/search', better: 'lower' },
] as const;

function modelNote(m: Measured): string {
  const { model } = m;
  const cpu = model.cpu === null ? '-' : model.cpu.toFixed(1);
  return `${shapeLabel(m.shape)}: budgets ${model.budgets.toFixed(1)}, running slots ${model.slots.toFixed(1)}, check slots ${model.checkSlots.toFixed(1)}, CPU ${cpu} a minute: bound by ${model.bound}; measured ${m.perMinute.toFixed(1)} (${(m.perMinute / model.perMinute).toFixed(2)} x); a search ran ${((runMs(m) ?? Number.NaN) / 1000).toFixed(1)} s once taken (its floor ${(m.searchMs / 1000).toFixed(1)} s); its processes (API, workers, simulated web, Redis) busy ${m.cores.toFixed(2)} of ${cpus().length} cores, the machine ${m.machineCores.toFixed(2)} (load ${m.load.toFixed(1)} at the end), warm-up ${(m.warmMs / 1000).toFixed(0)} s`;
}

export const clusterCase: BenchCase = {
  id: '6',
  title: 'cluster mode, sustained: searches a minute of 1 worker x 1 identity and 2 workers x 2 identities',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const redisUrl = benchRedisUrl();
    if (!(await redisAnswers(redisUrl))) {
      return {
        id: this.id,
        title: this.title,
        columns: COLUMNS,
        rows: [],
        targets: [],
        notes: [`skipped: no Redis answers at ${redisUrl} (set REDIS_URL)`],
        settings: {},
      };
    }
    // Cached outcomes would spare the checks of a name searched again (the pool's 64 names come round).
    const overrides: ServerOverrides = {
      ...API_OVERRIDES,
      cacheHitSeconds: 0,
      cacheMissSeconds: 0,
      cacheOtherSeconds: 0,
      ...ctx.serverOverrides,
    };
    const catalogue = loadPlatformSet('builtin', ctx.seed).searched;
    const budget = {
      perSecond: settingOf(overrides, 'budgetPerSecond'),
      burst: settingOf(overrides, 'budgetBurst'),
    };
    const subset = budgetBoundSubset(catalogue, {
      size: SUBSET_SIZE,
      maxLatencyMs: SUBSET_MAX_LATENCY_MS,
      profile: 'realistic',
      seed: ctx.seed,
      budget,
    });
    const busiest = sustainedRate(catalogue, { identities: 1, budget });
    const measured: Measured[] = [];
    for (const shape of shapes(ctx.quick))
      measured.push(
        await measureShape(
          ctx,
          shape,
          shape.platforms === 'subset' ? subset : catalogue,
          overrides,
          redisUrl,
        ),
      );
    const judged = measured.filter((m) => m.shape.platforms === 'subset');
    const top = judged.find((m) => m.shape.workers === 2);
    const base = top && baseOf(measured, top);
    const scale = top && base ? top.perMinute / base.perMinute : null;
    const whole = measured.filter((m) => m.shape.platforms === 'catalogue');
    const { windowMs } = timing(ctx.quick);
    return {
      id: this.id,
      title: this.title,
      columns: COLUMNS,
      rows: measured.map((m) => clusterRow(m, measured)),
      targets: [
        {
          text: `2 workers x 2 identities sustain at least ${SCALE_TARGET} x the searches a minute of 1 worker x 1 identity, over the budget-bound subset (${scale?.toFixed(2) ?? '-'})`,
          value: scale,
          met: scale === null ? null : scale >= SCALE_TARGET,
        },
        {
          text: `no check held back by the budgets in those rows: each search counted answered in full (${judged.map((m) => m.held).join(', ')})`,
          value: judged.reduce((n, m) => n + m.held, 0),
          met: judged.every((m) => m.held === 0),
        },
        {
          text: `no 429 from the simulated sites (${measured.map((m) => m.rateLimited).join(', ')})`,
          value: measured.reduce((n, m) => n + m.rateLimited, 0),
          met: measured.every((m) => m.rateLimited === 0),
        },
      ],
      notes: [
        `sustained: each row keeps ${IN_FLIGHT_PER_RUNNING} x (workers x running per worker) professional searches in flight, a new one as soon as its client (polling once a second) sees one end, so the queue always holds work; after a warm-up (until workers x running searches are done, ${timing(ctx.quick).warmMinMs / 1000}-${timing(ctx.quick).warmMaxMs / 1000} s), searches a minute = those completed in a ${windowMs / 1000} s window (the server's completedAt) ÷ its length; p50 / p95 are theirs, queue wait included; run ms = workers x running ÷ searches a minute, how long a search ran once a worker took it (every slot busy, Little's law)`,
        `running per worker (maxRunningSearches) = the most searches whose requests to the busiest origin (${busiest.origin}, ${busiest.platforms} a search) a worker's identities send within 0.9 x the check deadline (${timeoutNote(overrides)}; runningWithinDeadline in bench/politeness.ts): ${[...new Set(measured.map((m) => `${m.running} with ${Math.max(1, m.shape.identities)} identit${m.shape.identities > 1 ? 'ies' : 'y'}`))].join(', ')}; more would hold checks back (unknown/budget_exhausted) once the worker is kept supplied, so its searches would end sooner with fewer answers`,
        `platforms: 'catalogue' = a default search (${catalogue.length} platforms); 'subset' = ${busiest.origin}'s ${busiest.platforms} platforms and the first ${subset.length - busiest.platforms} others of a default search that answer within ${SUBSET_MAX_LATENCY_MS / 1000} s (seeded realistic latency; none that never answers), ${subset.length} in all, sent as the search's platforms`,
        `model (docs/deployment.md's capacity model, a minute): budgets = 60 x budget x identities ÷ ${busiest.platforms} (${busiest.origin}) = ${(busiest.perHour / 60).toFixed(1)} a minute per identity; running slots = workers x running x 60 ÷ the slowest platform's latency (the ${timeoutNote(overrides)} timeout when one never answers); check slots = workers x concurrency (${overrides.concurrency !== undefined ? String(overrides.concurrency) : `${settingOf({}, 'concurrency')} per identity of the worker`}) x 60 ÷ the slot time a search's checks hold (the sum of its platforms' latencies, the timeout for one that never answers; a check sleeping on a budget holds none); CPU = ${cpus().length} cores ÷ the CPU a search cost in the window (API process, workers, simulated web and Redis, all on this machine's cores); the prediction is the smallest`,
        ...measured.map(modelNote),
        judgedNote(judged, whole, busiest.perHour, catalogue.length),
        'identities: each worker sends from loopback addresses of its own (127.0.0.2 onwards), each address with its own request budgets in Redis; one identity is the default route',
        'outcome cache off (cacheHitSeconds, cacheMissSeconds, cacheOtherSeconds 0): the 64 usernames come round, and a cached outcome would spare its check',
        'checks held = unknown/budget_exhausted outcomes the workers counted in the window (their /metrics); CPU: the API process and workers (their own readings), the simulated web (its process) and Redis (INFO cpu, anything else using that Redis included), over the window; peak RSS summed over the API process and workers',
        'Redis ops/search = the commands Redis ran in the window (INFO commandstats, anything else using that Redis too) ÷ the searches done in it',
        `Redis at ${redisUrl.replace(/\/\/[^@]*@/, '//…@')}, under a key prefix of the row's own that is deleted afterwards`,
      ],
      settings: {
        ...overrides,
        maxRunningSearches: 'per row (running per worker)',
        why: 'every client is 127.0.0.1, so the limits would otherwise refuse the load; the outcome cache would spare repeated names their checks',
      },
    };
  },
};

/** Which rows the target reads, and why: what bound each row, from its model. */
function judgedNote(
  judged: readonly Measured[],
  whole: readonly Measured[],
  budgetPerIdentityHour: number,
  catalogueSize: number,
): string {
  const bounds = (rows: readonly Measured[]) =>
    rows
      .map((m) => `${m.model.bound} for ${m.shape.workers} x ${Math.max(1, m.shape.identities)}`)
      .join(', ');
  const ratio = (rows: readonly Measured[]) => {
    const top = rows.find((m) => m.shape.workers === 2);
    const base = top && baseOf(rows, top);
    return top && base ? (top.perMinute / base.perMinute).toFixed(2) : '-';
  };
  const subset = `the target reads the subset rows, where the model predicts ${bounds(judged)}: where the request budgets bind both rows, their ratio is what workers x identities add`;
  if (whole.length === 0) return `${subset} (the whole catalogue's rows run without --quick)`;
  const top = whole.find((m) => m.shape.workers === 2);
  const others = top
    ? `: its workers' check slots allow ${top.model.checkSlots.toFixed(0)}, its running slots ${top.model.slots.toFixed(0)}, this machine's ${cpus().length} cores ${top.model.cpu?.toFixed(0) ?? '-'} at the CPU a search cost there (${top.model.cpu ? ((top.model.budgets / top.model.cpu) * cpus().length).toFixed(1) : '-'} cores at the budgets' rate)`
    : '';
  return `${subset}; over the whole catalogue it predicts ${bounds(whole)} (4 identities' budgets allow ${((4 * budgetPerIdentityHour) / 60).toFixed(0)} searches a minute of ${catalogueSize} platforms${others}), so that ratio (${ratio(whole)}) measures what binds there on this machine, not what workers x identities add`;
}

function timeoutNote(overrides: ServerOverrides): string {
  return `${settingOf(overrides, 'timeoutMs') / 1000} s`;
}
