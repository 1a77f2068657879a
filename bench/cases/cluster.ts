/**
 * Case 6: cluster mode. The same searches as case 3 (POST, then polling once a
 * second, half of them professional, realistic latency) against one API
 * process and 1 worker with 1 egress identity, then 2 workers with 2 loopback
 * source addresses each, sharing Redis (and its request budgets): searches per
 * minute, completion times, the politeness bound and the sites' 429s, with CPU
 * and memory summed over every process.
 */

import { benchRedisUrl, clusterServer, redisAnswers, redisCalls } from '../cluster.js';
import type { BenchCase } from '../context.js';
import type { Row } from '../results.js';
import { distribution } from '../stats.js';
import { API_OVERRIDES, type ApiLevel, measureApiLevel } from './api-searches.js';

/** Deployments compared: workers, and egress identities of each (0: the default route). */
const SHAPES = [
  { workers: 1, identities: 0 },
  { workers: 2, identities: 2 },
] as const;
/** Issue 13: 2 workers x 2 identities give at least this many times 1 worker x 1 identity. */
const SCALE_TARGET = 3.6;

function searchesPerRow(quick: boolean): number {
  return quick ? 4 : 10;
}

function clusterRow(
  shape: (typeof SHAPES)[number],
  level: ApiLevel,
  oneWorker: ApiLevel | undefined,
  redisOps: number,
): Row {
  const { workers } = shape;
  const identities = Math.max(1, shape.identities);
  const all = distribution(level.all)!;
  return {
    label: `${workers} worker${workers > 1 ? 's' : ''} x ${identities} identit${identities > 1 ? 'ies' : 'y'}`,
    values: {
      workers,
      identities,
      searches: level.searches,
      completed: level.completed,
      perMinute: level.perMinute,
      vsOneWorker: oneWorker ? level.perMinute / oneWorker.perMinute : null,
      p50: Math.round(all.p50),
      p95: Math.round(all.p95),
      makespan: Math.round(level.makespanMs),
      boundMs: Math.round(level.boundMs),
      vsBound: level.vsBound,
      rateLimited: level.rateLimited,
      errors: level.errors,
      cpuMsPer1000: Math.round(level.cpuMsPer1000),
      cores: level.cores,
      maxRssMb: Math.round(level.maxRssMb),
      redisOpsPerSearch: level.completed > 0 ? Math.round(redisOps / level.completed) : null,
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
      { key: 'identities', title: 'identities each', better: 'none' },
      { key: 'searches', title: 'searches', better: 'none' },
      { key: 'completed', title: 'done', better: 'higher' },
      { key: 'perMinute', title: 'searches/min', better: 'higher', digits: 1 },
      { key: 'vsOneWorker', title: 'x 1 worker 1 identity', better: 'higher', digits: 2 },
      { key: 'p50', title: 'p50 ms', better: 'lower' },
      { key: 'p95', title: 'p95 ms', better: 'lower' },
      { key: 'makespan', title: 'all done ms', better: 'lower' },
      { key: 'boundMs', title: 'politeness bound ms', better: 'none' },
      { key: 'vsBound', title: 'x bound', better: 'lower', digits: 2 },
      { key: 'rateLimited', title: '429s', better: 'lower' },
      { key: 'errors', title: 'errors', better: 'lower' },
      { key: 'cpuMsPer1000', title: 'CPU ms/1000 checks', better: 'lower' },
      { key: 'cores', title: 'cores', better: 'lower', digits: 2 },
      { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
      { key: 'redisOpsPerSearch', title: 'Redis ops/search', better: 'lower' },
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
    const redisOps: number[] = [];
    for (const { workers, identities } of SHAPES) {
      ctx.log(
        `case 6: ${searches} searches, cluster with ${workers} worker(s) x ${Math.max(1, identities)} identities`,
      );
      const callsBefore = await redisCalls(redisUrl);
      levels.push(
        await measureApiLevel(
          ctx,
          searches,
          ctx.serverOverrides,
          clusterServer(workers, redisUrl, identities),
          workers * Math.max(1, identities),
        ),
      );
      redisOps.push((await redisCalls(redisUrl)) - callsBefore);
    }
    const scale = levels[0] && levels[1] ? levels[1].perMinute / levels[0].perMinute : null;
    return {
      id: this.id,
      title: this.title,
      columns,
      rows: levels.map((level, i) => clusterRow(SHAPES[i]!, level, levels[0], redisOps[i]!)),
      targets: [
        {
          text: `2 workers x 2 identities give at least ${SCALE_TARGET} x the searches a minute of 1 worker x 1 identity (${scale?.toFixed(2) ?? '-'})`,
          value: scale,
          met: scale === null ? null : scale >= SCALE_TARGET,
        },
        {
          text: `no 429 from the simulated sites (${levels.map((l) => l.rateLimited).join(', ')})`,
          value: levels.reduce((n, l) => n + l.rateLimited, 0),
          met: levels.every((l) => l.rateLimited === 0),
        },
      ],
      notes: [
        `${searches} searches at once per row, each a different username, half of them professional; the API process, every worker and the simulated web share this machine's cores, so a second worker adds slots and an event loop, not CPU`,
        'identities: each worker sends from loopback addresses of its own (127.0.0.2 onwards), each address with its own request budgets in Redis; one identity is the default route, whose budget every worker shares',
        'CPU, cores and peak RSS are summed over the API process and the workers (not Redis, not the simulated web)',
        'Redis ops/search = the commands Redis ran during the row (INFO commandstats, the start-up and clean-up of the deployment included, anything else using that Redis too) ÷ the searches done',
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
