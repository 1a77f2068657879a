/**
 * Case 4: growth. Cases 1 and 2 at 100, the built-in catalogue's and 3000
 * platforms, and (when case 3 ran) the API at 1, 10 and 50 searches, so the
 * shape of the cost is visible: the exponent k in cost ∝ size^k.
 */
import type { BenchCase } from '../context.js';
import type { PlatformSetId } from '../platform-set.js';
import type { Row } from '../results.js';
import { growthExponent } from '../stats.js';
import { type ApiLevel, apiLevelsMeasured } from './api-searches.js';
import { measureOverhead } from './engine-overhead.js';
import { measureOneSearch } from './one-search.js';

export function growthSets(quick: boolean): PlatformSetId[] {
  return quick ? ['synthetic-100', 'builtin'] : ['synthetic-100', 'builtin', 'synthetic-3000'];
}

function shape(k: number): string {
  if (Number.isNaN(k)) return 'n/a';
  if (k < 0.3) return 'flat';
  if (k < 0.85) return 'sublinear';
  if (k <= 1.15) return 'linear';
  return 'worse than linear';
}

export const growthCase: BenchCase = {
  id: '4',
  title: 'growth with platforms and with concurrent searches',
  after: ['1', '2', '3'],
  sims: (quick) => growthSets(quick).flatMap((set) => [[set, 'realistic'] as const, [set, 'zero'] as const]),
  async run(ctx) {
    const rows: Row[] = [];
    const sets = growthSets(ctx.quick);
    const measured: {
      size: number;
      wall: number;
      limit: number;
      cpu: number;
      perCheck: number;
      rss: number;
    }[] = [];
    for (const set of sets) {
      const one = await measureOneSearch(ctx, set);
      const overhead = await measureOverhead(ctx, set);
      measured.push({
        size: one.platforms,
        wall: one.wallMs,
        limit: one.limit.limitMs,
        cpu: one.cpuMs,
        perCheck: overhead.cpuMsPer1000,
        rss: overhead.maxRssMb,
      });
      rows.push({
        label: `${set} platforms`,
        values: {
          size: one.platforms,
          wallMs: Math.round(one.wallMs),
          limitMs: one.limit.limitMs,
          ratio: one.ratio,
          searchCpuMs: Math.round(one.cpuMs),
          cpuMsPer1000: Math.round(overhead.cpuMsPer1000),
          maxRssMb: Math.round(overhead.maxRssMb),
        },
      });
    }
    const notes: string[] = [];
    const first = measured[0]!;
    const last = measured[measured.length - 1]!;
    const kWall = growthExponent(first.size, first.wall, last.size, last.wall);
    const kCpu = growthExponent(first.size, first.cpu, last.size, last.cpu);
    const kPerCheck = growthExponent(first.size, first.perCheck, last.size, last.perCheck);
    notes.push(
      `platforms ${first.size} -> ${last.size}: wall grows as size^${kWall.toFixed(2)} (${shape(kWall)}), one search's CPU as size^${kCpu.toFixed(2)} (${shape(kCpu)}), CPU per check as size^${kPerCheck.toFixed(2)}`,
    );

    const api: readonly ApiLevel[] = await apiLevelsMeasured(ctx);
    for (const level of api) {
      rows.push({
        label: `API ${level.searches} searches`,
        values: {
          size: level.searches,
          wallMs: Math.round(level.makespanMs),
          limitMs: null,
          ratio: level.vsSingle,
          searchCpuMs: Math.round(level.cpuMsPerSearch),
          cpuMsPer1000: Math.round(level.cpuMsPer1000),
          maxRssMb: Math.round(level.maxRssMb),
        },
      });
    }
    if (api.length >= 2) {
      const a = api[0]!;
      const b = api[api.length - 1]!;
      const k = growthExponent(a.searches, a.makespanMs, b.searches, b.makespanMs);
      const perSearchMb = (b.maxRssMb - a.maxRssMb) / (b.searches - a.searches);
      const bound = b.completed < b.searches ? ' (at least: the top level stopped at its deadline)' : '';
      notes.push(
        `searches ${a.searches} -> ${b.searches}: time to finish all grows as n^${k.toFixed(2)} (${shape(k)})${bound}; peak RSS grows ${perSearchMb.toFixed(1)} MB per extra concurrent search`,
      );
    } else {
      notes.push('API rows appear when case 3 runs in the same invocation');
    }
    return {
      id: this.id,
      title: this.title,
      columns: [
        { key: 'size', title: 'size', better: 'none' },
        { key: 'wallMs', title: 'wall ms', better: 'lower' },
        { key: 'limitMs', title: 'limit ms', better: 'none' },
        { key: 'ratio', title: 'ratio', better: 'lower', digits: 2 },
        { key: 'searchCpuMs', title: 'CPU ms/search', better: 'lower' },
        { key: 'cpuMsPer1000', title: 'CPU ms/1000 checks', better: 'lower' },
        { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
      ],
      rows,
      targets: [],
      notes: [
        ...notes,
        'platform rows: wall, limit, ratio and CPU ms/search from case 1 (realistic); CPU ms/1000 checks and peak RSS from case 2 (zero latency)',
        'API rows: wall = time until the last search finished, ratio = that / one search alone, from case 3',
      ],
      settings: {},
    };
  },
};
