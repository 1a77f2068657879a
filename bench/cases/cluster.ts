/**
 * Case 6: cluster mode. The same searches as case 3 (POST, then polling once a
 * second, half of them professional, realistic latency) against one API
 * process and 1, then 2, worker processes sharing Redis: searches per minute
 * and completion times, with CPU and memory summed over every process.
 */

import { benchRedisUrl, clusterServer, redisAnswers } from '../cluster.js';
import type { BenchCase } from '../context.js';
import type { Row } from '../results.js';
import { distribution } from '../stats.js';
import { API_OVERRIDES, type ApiLevel, measureApiLevel } from './api-searches.js';

const WORKERS = [1, 2] as const;

function searchesPerRow(quick: boolean): number {
  return quick ? 4 : 10;
}

function clusterRow(workers: number, level: ApiLevel, oneWorker: ApiLevel | undefined): Row {
  const all = distribution(level.all)!;
  return {
    label: `${workers} worker${workers > 1 ? 's' : ''}`,
    values: {
      workers,
      searches: level.searches,
      completed: level.completed,
      perMinute: level.perMinute,
      vsOneWorker: oneWorker ? level.perMinute / oneWorker.perMinute : null,
      p50: Math.round(all.p50),
      p95: Math.round(all.p95),
      makespan: Math.round(level.makespanMs),
      errors: level.errors,
      cpuMsPer1000: Math.round(level.cpuMsPer1000),
      cores: level.cores,
      maxRssMb: Math.round(level.maxRssMb),
    },
  };
}

export const clusterCase: BenchCase = {
  id: '6',
  title: 'cluster mode: one API process and 1 or 2 workers on Redis, realistic latency',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const redisUrl = benchRedisUrl();
    const columns = [
      { key: 'workers', title: 'workers', better: 'none' },
      { key: 'searches', title: 'searches', better: 'none' },
      { key: 'completed', title: 'done', better: 'higher' },
      { key: 'perMinute', title: 'searches/min', better: 'higher', digits: 1 },
      { key: 'vsOneWorker', title: 'x 1 worker', better: 'higher', digits: 2 },
      { key: 'p50', title: 'p50 ms', better: 'lower' },
      { key: 'p95', title: 'p95 ms', better: 'lower' },
      { key: 'makespan', title: 'all done ms', better: 'lower' },
      { key: 'errors', title: 'errors', better: 'lower' },
      { key: 'cpuMsPer1000', title: 'CPU ms/1000 checks', better: 'lower' },
      { key: 'cores', title: 'cores', better: 'lower', digits: 2 },
      { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
    ] as const;
    if (!(await redisAnswers(redisUrl))) {
      return {
        id: this.id,
        title: this.title,
        columns,
        rows: [],
        targets: [],
        notes: [`skipped: no Redis answers at ${redisUrl} (set REDIS_URL)`],
        settings: {},
      };
    }
    const searches = searchesPerRow(ctx.quick);
    const levels: ApiLevel[] = [];
    for (const workers of WORKERS) {
      ctx.log(`case 6: ${searches} searches, cluster with ${workers} worker(s)`);
      levels.push(
        await measureApiLevel(ctx, searches, ctx.serverOverrides, clusterServer(workers, redisUrl)),
      );
    }
    return {
      id: this.id,
      title: this.title,
      columns,
      rows: levels.map((level, i) => clusterRow(WORKERS[i]!, level, levels[0])),
      targets: [],
      notes: [
        `${searches} searches at once per row, each a different username, half of them professional; the API process, every worker and the simulated web share this machine's cores, so a second worker adds slots and an event loop, not CPU`,
        'CPU, cores and peak RSS are summed over the API process and the workers (not Redis, not the simulated web)',
        `Redis at ${redisUrl.replace(/\/\/[^@]*@/, '//…@')}, under a key prefix of the run's own that is deleted afterwards`,
      ],
      settings: {
        ...API_OVERRIDES,
        ...ctx.serverOverrides,
        why: 'every client is 127.0.0.1; the limits would otherwise refuse the load',
      },
    };
  },
};
