/**
 * Case 2: the engine's own cost at zero latency, with 20-80 KB bodies to
 * classify: CPU milliseconds per 1000 checks, checks per second, peak RSS.
 */
import { SETTINGS } from '../../src/config.js';
import type { BenchCase, BenchContext } from '../context.js';
import { runEngineSearches } from '../engine-run.js';
import {
  ACCOUNT_POOL,
  PAD_MAX_BYTES,
  PAD_MIN_BYTES,
  type PlatformSetId,
  platformSetSize,
} from '../platform-set.js';
import { measure } from '../process-usage.js';
import type { Column, Row } from '../results.js';

export interface Overhead {
  readonly set: PlatformSetId;
  readonly platforms: number;
  readonly searches: number;
  readonly checks: number;
  readonly cpuMsPer1000: number;
  readonly checksPerSecond: number;
  /** The first search of a fresh engine: new connections and TLS handshakes, JIT warm-up. */
  readonly coldCpuMsPer1000: number;
  readonly maxRssMb: number;
  readonly simCores: number;
}

/**
 * The service's search thread's young generation, as a process flag: V8's young
 * generation is two semi-spaces (Node 20-24: `--max-semi-space-size=32` and a worker's
 * `maxYoungGenerationSizeMb: 64` both give a 64 MB new space). `BENCH_ENGINE_HEAP=node`
 * runs the engine with Node's default instead, `BENCH_ENGINE_HEAP=128` with that many MB.
 */
export function searchThreadHeap(
  setting = process.env.BENCH_ENGINE_HEAP,
  youngMb = SETTINGS.searchThreadYoungGenerationMb.default,
): string[] {
  if (setting === 'node') return [];
  const mb = setting === undefined || setting === '' ? youngMb : Number(setting);
  if (!Number.isInteger(mb) || mb < 2)
    throw new Error(`BENCH_ENGINE_HEAP must be node or a whole number of MB; received ${setting}`);
  return [`--max-semi-space-size=${mb / 2}`];
}

/** Checks measured per set (after the first, cold, search). */
const CHECKS_FULL = 4000;
const CHECKS_QUICK = 2000;

export function measureOverhead(ctx: BenchContext, set: PlatformSetId): Promise<Overhead> {
  return ctx.memo(`overhead:${set}`, async () => {
    ctx.log(`case 2: engine overhead over ${set}, zero latency`);
    const size = platformSetSize(set, ctx.seed);
    const searches = Math.min(
      ACCOUNT_POOL.length - 1,
      Math.max(1, Math.ceil((ctx.quick ? CHECKS_QUICK : CHECKS_FULL) / size)),
    );
    const sim = await ctx.sim(set, 'zero');
    const {
      result: { ready, reports },
      usage: simUsage,
    } = await measure(
      () => sim.child.usage(),
      () =>
        // The engine as a long-running process runs it: connections kept between searches (the
        // command line closes them after each origin's last check, for memory; see case 1).
        runEngineSearches(
          ctx,
          set,
          'zero',
          [[ACCOUNT_POOL[0]!], ACCOUNT_POOL.slice(1, 1 + searches)],
          undefined,
          { keepIdleConnections: true },
          // …and with the young generation the service gives its search thread.
          searchThreadHeap(),
        ),
    );
    const [cold, warm] = [reports[0]!, reports[1]!];
    const [coldUsage, warmUsage] = [cold.usage, warm.usage];
    return {
      set,
      platforms: ready.platforms,
      searches,
      checks: warm.checks,
      cpuMsPer1000: (warmUsage.cpuMs / warm.checks) * 1000,
      checksPerSecond: warm.checks / (warm.wallMs / 1000),
      coldCpuMsPer1000: (coldUsage.cpuMs / cold.checks) * 1000,
      maxRssMb: warmUsage.maxRssMb,
      simCores: simUsage.cpuMs / (cold.wallMs + warm.wallMs),
    };
  });
}

export const OVERHEAD_COLUMNS: readonly Column[] = [
  { key: 'platforms', title: 'platforms', better: 'none' },
  { key: 'checks', title: 'checks', better: 'none' },
  { key: 'cpuMsPer1000', title: 'CPU ms/1000 checks', better: 'lower' },
  { key: 'checksPerCpuSecond', title: 'checks/CPU-s', better: 'higher' },
  { key: 'checksPerSecond', title: 'checks/s', better: 'higher' },
  { key: 'coldCpuMsPer1000', title: 'cold CPU ms/1000', better: 'lower' },
  { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
  { key: 'simCores', title: 'sim cores', better: 'none', digits: 2 },
];

export function overheadRow(m: Overhead): Row {
  return {
    label: m.set,
    values: {
      platforms: m.platforms,
      checks: m.checks,
      cpuMsPer1000: Math.round(m.cpuMsPer1000),
      checksPerCpuSecond: Math.round(1_000_000 / m.cpuMsPer1000),
      checksPerSecond: Math.round(m.checksPerSecond),
      coldCpuMsPer1000: Math.round(m.coldCpuMsPer1000),
      maxRssMb: Math.round(m.maxRssMb),
      simCores: m.simCores,
    },
  };
}

/** 0.6 CPU-ms per check: at or under 600 per 1000. */
export const CPU_PER_1000_TARGET = 600;

export const engineOverheadCase: BenchCase = {
  id: '2',
  title: 'engine overhead, zero latency, 20-80 KB bodies',
  sims: () => [
    ['defended-none', 'zero'],
    ['builtin', 'zero'],
  ],
  async run(ctx) {
    // The engine's own cost, every check by http as the catalogue once had it; then the
    // catalogue as it is, its defended sites through impit and Chromium's client.
    const m = await measureOverhead(ctx, 'defended-none');
    const named = await measureOverhead(ctx, 'builtin');
    return {
      id: this.id,
      title: this.title,
      columns: OVERHEAD_COLUMNS,
      rows: [overheadRow(m), overheadRow(named)],
      targets: [
        {
          text: `<= ${CPU_PER_1000_TARGET} CPU-ms per 1000 checks (${Math.round(m.cpuMsPer1000)})`,
          value: m.cpuMsPer1000,
          met: m.cpuMsPer1000 <= CPU_PER_1000_TARGET,
        },
      ],
      notes: [
        `CPU = user + system of the engine process over ${m.searches} searches in a row, after one cold search (reported apart: new connections, TLS handshakes, JIT warm-up); connections kept between searches (USERSCOUT_KEEP_IDLE_CONNECTIONS=true), as a long-running engine keeps them; the engine process has the young generation the service gives its search thread (${searchThreadHeap().join(' ') || "Node's default"}; BENCH_ENGINE_HEAP=node: Node's default, =N: N MB)`,
        `HTML answers carry ${PAD_MIN_BYTES / 1000}-${PAD_MAX_BYTES / 1000} KB of filler before the deciding text; answers decided by status alone are not read`,
        `defended-none: the built-in catalogue with every transport http (the target's row); builtin: each platform by the transport its entry names (impersonate through impit, browser through Chromium, whose own processes are not counted)`,
        `checks/s is bounded by the simulated web sharing the same cores (sim cores = its CPU use during the run)`,
      ],
      settings: {
        engine: `command-line defaults (concurrency ${SETTINGS.concurrency.default}, perHost ${SETTINGS.perHost.default})`,
      },
    };
  },
};
