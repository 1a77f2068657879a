/**
 * Case 1: one search, engine only (the CLI path), realistic latency: its wall
 * time against the physical limit of the same run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../src/config.js';
import { estimateSeconds } from '../../src/runner/estimate.js';
import { originLoads } from '../../src/schedule/politeness-bound.js';
import { AT_ONCE, type BareClientRun, runBareClient } from '../bare-client.js';
import { type CompiledCliRun, compiledCliMissing, runCompiledCli } from '../compiled-cli.js';
import type { BenchCase, BenchContext } from '../context.js';
import { runEngineSearches } from '../engine-run.js';
import {
  latencyOf,
  loadPlatformSet,
  type PhysicalLimit,
  type PlatformSetId,
  physicalLimit,
} from '../platform-set.js';
import type { Column, Row } from '../results.js';

export const ONE_SEARCH_USERNAME = 'scout1';

/** `first`: a CLI with no memory (catalogue order); `remembered`: the next run, slowest first by the first run's times. */
export type OneSearchRun = 'first' | 'remembered';

export interface OneSearch {
  readonly set: PlatformSetId;
  readonly run: OneSearchRun;
  readonly platforms: number;
  readonly checks: number;
  readonly wallMs: number;
  readonly limit: PhysicalLimit;
  readonly ratio: number;
  /**
   * What the service would estimate for this search (runner/estimate.ts, with
   * every platform's latency measured as the simulated web serves it, nothing
   * queued ahead) ÷ the wall time.
   */
  readonly estimateRatio: number;
  /** The most any check ended after its own platform could have answered (ms): queueing plus overhead. */
  readonly worstLateMs: number;
  readonly cpuMs: number;
  readonly maxRssMb: number;
  readonly startupMs: number;
}

export function measureOneSearch(
  ctx: BenchContext,
  set: PlatformSetId,
  run: OneSearchRun = 'first',
): Promise<OneSearch> {
  return ctx.memo(`one-search:${set}:${run}`, async () => {
    // The CLI's latency memory, fresh for the first run; the second run is a new process reading it.
    const latencyFile = join(ctx.workDir, `cli-latencies-${set}.json`);
    if (run === 'first') rmSync(latencyFile, { force: true });
    else await measureOneSearch(ctx, set, 'first');
    ctx.log(`case 1: one search over ${set}, realistic latency, ${run} run`);
    const { ready, reports } = await runEngineSearches(
      ctx,
      set,
      'realistic',
      [[ONE_SEARCH_USERNAME]],
      latencyFile,
    );
    const report = reports[0]!;
    const byId = new Map(loadPlatformSet(set, ctx.seed).catalogue.platforms.map((p) => [p.id, p]));
    const checked = report.checkedIds.map((id) => byId.get(id)!);
    const limit = physicalLimit(checked, 'realistic', ctx.seed, ready.timeoutMs);
    let worstLateMs = 0;
    checked.forEach((p, i) => {
      const l = latencyOf('realistic', ctx.seed, p);
      const own = l === 'hang' ? ready.timeoutMs : l;
      worstLateMs = Math.max(worstLateMs, report.doneAtMs[i]! - own);
    });
    const usage = report.usage;
    const estimateMs =
      estimateSeconds({
        latenciesMs: checked.map((p) => {
          const l = latencyOf('realistic', ctx.seed, p);
          return l === 'hang' ? ready.timeoutMs : l;
        }),
        defaultLatencyMs: SETTINGS.unmeasuredLatencyMs.default,
        timeoutMs: ready.timeoutMs,
        concurrency: SETTINGS.concurrency.default,
        origins: originLoads(checked, {
          perSecond: SETTINGS.budgetPerSecond.default,
          burst: SETTINGS.budgetBurst.default,
        }).map((o) => ({ platforms: o.platforms.length, limit: o.limit })),
        identities: 1,
        running: 0,
        queuedAhead: 0,
        maxRunning: SETTINGS.maxRunningSearches.default,
      }) * 1000;
    return {
      set,
      run,
      platforms: ready.platforms,
      checks: report.checks,
      wallMs: report.wallMs,
      limit,
      ratio: report.wallMs / limit.limitMs,
      estimateRatio: estimateMs / report.wallMs,
      worstLateMs,
      cpuMs: usage.cpuMs,
      maxRssMb: usage.maxRssMb,
      startupMs: ready.startupMs,
    };
  });
}

export const ONE_SEARCH_COLUMNS: readonly Column[] = [
  { key: 'platforms', title: 'platforms', better: 'none' },
  { key: 'hanging', title: 'hanging', better: 'none' },
  { key: 'wallMs', title: 'wall ms', better: 'lower' },
  { key: 'limitMs', title: 'limit ms', better: 'none' },
  { key: 'ratio', title: 'wall/limit', better: 'lower', digits: 3 },
  { key: 'estimateRatio', title: 'estimate ÷ actual', better: 'none', digits: 2 },
  { key: 'worstLateMs', title: 'worst late ms', better: 'lower' },
  { key: 'cpuMs', title: 'CPU ms', better: 'lower' },
  { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
];

export function oneSearchRow(m: OneSearch): Row {
  return {
    label: `${m.set}, ${m.run === 'first' ? 'first run' : 'next run (remembered times)'}`,
    values: {
      platforms: m.platforms,
      hanging: m.limit.hanging,
      wallMs: Math.round(m.wallMs),
      limitMs: m.limit.limitMs,
      ratio: m.ratio,
      estimateRatio: m.estimateRatio,
      worstLateMs: Math.round(m.worstLateMs),
      cpuMs: Math.round(m.cpuMs),
      maxRssMb: Math.round(m.maxRssMb),
    },
  };
}

export const RATIO_TARGET = 1.05;

/** One CLI search of CLI_TARGET_PLATFORMS platforms peaks at or under this (MiB, shown as MB). */
export const CLI_PEAK_RSS_TARGET_MB = 120;

/**
 * The size of search the memory target names (the work the other tools
 * were measured on): the first this many platforms of the default selection, in
 * catalogue order (`--platform ID` each).
 */
export const CLI_TARGET_PLATFORMS = 716;

/**
 * The compiled CLI's own search, in a process of its own (no tsx), or why it was
 * not measured: over the whole default selection, or its first `first` platforms.
 */
function measureCompiledCli(ctx: BenchContext, first?: number): Promise<CompiledCliRun | string> {
  return ctx.memo(`one-search:compiled-cli:${first ?? 'all'}`, async () => {
    const missing = compiledCliMissing();
    if (missing) return missing;
    ctx.log(
      `case 1: one search by the compiled CLI (node dist/cli/main.js) over ${first === undefined ? 'the default selection' : `its first ${first} platforms`}, realistic latency`,
    );
    const ids =
      first === undefined
        ? undefined
        : loadPlatformSet('builtin', ctx.seed)
            .searched.slice(0, first)
            .map((p) => p.id);
    return runCompiledCli(await ctx.sim('builtin', 'realistic'), ONE_SEARCH_USERNAME, ids);
  });
}

/** The bare client over the platforms of the CLI's target search (bare-client.ts): the floor under its CPU. */
function measureBareClient(ctx: BenchContext): Promise<BareClientRun> {
  return ctx.memo(`one-search:bare-client:${CLI_TARGET_PLATFORMS}`, async () => {
    ctx.log(
      `case 1: a bare undici client, one GET to each check URL of the first ${CLI_TARGET_PLATFORMS} platforms`,
    );
    const platforms = loadPlatformSet('builtin', ctx.seed).searched.slice(0, CLI_TARGET_PLATFORMS);
    const sim = await ctx.sim('builtin', 'realistic');
    return runBareClient(sim, platforms, ONE_SEARCH_USERNAME, ctx.workDir, SETTINGS.timeoutMs.default);
  });
}

function bareClientRow(bare: BareClientRun): Row {
  return {
    label: `builtin's first ${CLI_TARGET_PLATFORMS}, bare undici client (the floor)`,
    values: {
      platforms: bare.requests,
      hanging: bare.failed,
      wallMs: Math.round(bare.wallMs),
      limitMs: null,
      ratio: null,
      estimateRatio: null,
      worstLateMs: null,
      cpuMs: Math.round(bare.cpuMs),
      maxRssMb: Math.round(bare.maxRssMb),
    },
  };
}

function compiledCliRow(label: string, cli: CompiledCliRun): Row {
  return {
    label,
    values: {
      platforms: cli.outcomes,
      hanging: null,
      wallMs: Math.round(cli.wallMs),
      limitMs: null,
      ratio: null,
      estimateRatio: null,
      worstLateMs: null,
      cpuMs: Math.round(cli.cpuMs),
      maxRssMb: Math.round(cli.maxRssMb),
    },
  };
}

export const oneSearchCase: BenchCase = {
  id: '1',
  title: 'one search, engine only (CLI path), realistic latency',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const first = await measureOneSearch(ctx, 'builtin', 'first');
    const m = await measureOneSearch(ctx, 'builtin', 'remembered');
    const cli = await measureCompiledCli(ctx);
    const target = await measureCompiledCli(ctx, CLI_TARGET_PLATFORMS);
    const bare = await measureBareClient(ctx);
    const cliRows: Row[] = [
      ...(typeof target === 'string'
        ? []
        : [compiledCliRow(`builtin's first ${CLI_TARGET_PLATFORMS}, compiled CLI (no tsx)`, target)]),
      bareClientRow(bare),
      ...(typeof cli === 'string' ? [] : [compiledCliRow('builtin, compiled CLI (no tsx)', cli)]),
    ];
    return {
      id: this.id,
      title: this.title,
      columns: ONE_SEARCH_COLUMNS,
      rows: [oneSearchRow(first), oneSearchRow(m), ...cliRows],
      targets: [
        {
          text: `next run: wall <= ${RATIO_TARGET} x physical limit (${m.ratio.toFixed(3)}; first run ${first.ratio.toFixed(3)})`,
          value: m.ratio,
          met: m.ratio <= RATIO_TARGET,
        },
        {
          text: `compiled CLI, ${CLI_TARGET_PLATFORMS} platforms: peak RSS <= ${CLI_PEAK_RSS_TARGET_MB} MiB (${typeof target === 'string' ? 'not measured' : Math.round(target.maxRssMb)}; the whole default selection ${typeof cli === 'string' ? 'not measured' : Math.round(cli.maxRssMb)})`,
          value: typeof target === 'string' ? null : target.maxRssMb,
          met: typeof target === 'string' ? null : target.maxRssMb <= CLI_PEAK_RSS_TARGET_MB,
        },
      ],
      notes: [
        `limit = slowest checked platform's seeded latency (${m.limit.slowest}), or the timeout when one never answers; median assigned latency ${m.limit.medianMs} ms`,
        'estimate ÷ actual = what the service would estimate for this search (src/runner/estimate.ts, every platform’s latency known, nothing queued ahead) ÷ its wall time (1 is exact; under 1 the estimate was short)',
        `worst late = the most a check ended after its own platform's latency (queueing behind the global and per-host limits, plus overhead)`,
        'first run = a CLI with no latency memory (catalogue order); next run = a new process that reads the memory the first run wrote (USERSCOUT_LATENCY_FILE) and starts the slowest checks first, as the service orders them from its store',
        `${m.checks} checks; catalogue load and engine creation ${Math.round(m.startupMs)} ms (not in wall)`,
        'the first two rows run the engine in a bench child under tsx (its peak RSS includes tsx, tens of MB, and the catalogue load); the compiled CLI row is `node dist/cli/main.js search` as it ships, in a process of its own, measured whole (startup, catalogue, search, JSON output; wall includes startup), without latency memory',
        typeof cli === 'string'
          ? `compiled CLI not measured: ${cli}`
          : `compiled CLI: ${cli.outcomes} outcomes, ${cli.hits} hits`,
        `compiled CLI, first ${CLI_TARGET_PLATFORMS}: the size of search issue 13's memory target names (Blackbird 50 MB, Maigret 136, Sherlock 150 on the same work), the first ${CLI_TARGET_PLATFORMS} platforms of the default selection in catalogue order, each given as --platform ID${typeof target === 'string' ? '' : `; ${target.outcomes} outcomes, ${target.hits} hits`}; peak RSS in MB = MiB (maxRSS ÷ 1024 KiB)`,
        `bare undici client: one GET to each https check URL of the same ${CLI_TARGET_PLATFORMS} platforms (platforms = its requests, hanging = those with no answer), ${AT_ONCE} at a time, one shared secure context, no catalogue, classification, controls or retries, in a process of its own measured whole: what Node's HTTP and TLS cost for those connections, the floor under the CLI's CPU (bench/bare-client.ts)`,
      ],
      settings: {
        engine: `command-line defaults (timeoutMs ${SETTINGS.timeoutMs.default}, concurrency ${SETTINGS.concurrency.default}, perHost ${SETTINGS.perHost.default}, retries ${SETTINGS.retries.default})`,
        username: ONE_SEARCH_USERNAME,
      },
    };
  },
};
