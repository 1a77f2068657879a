/**
 * Case 7: one machine's ceiling. Searches through the API (as case 3) against
 * the simulated web at zero latency, with 16 loopback egress identities, so
 * neither latency nor the request budgets bound them: the searches an hour one
 * server process sustains, and what bounds it then (the server's CPU, and the
 * simulated web's share of the same cores).
 */
import { cpus, loadavg } from 'node:os';
import { SETTINGS } from '../../src/config.js';
import type { BenchCase } from '../context.js';
import { loadPlatformSet } from '../platform-set.js';
import { sustainedRate } from '../politeness.js';
import { usageDelta } from '../process-usage.js';
import { serverOn } from '../server.js';
import { API_OVERRIDES, measureApiLevel, settingOf } from './api-searches.js';

/** Loopback source addresses: budgets per identity add up, and each stays under the sites' per-address limits. */
const IDENTITIES = Array.from({ length: 16 }, (_, i) => `addr:127.0.0.${40 + i}`);
/** A 2-core machine sustains at least this many searches an hour when budgets are not the bound. */
const CEILING_TARGET = 5_000;

/** Busy past this share of what it can use, a resource is taken as the bound. */
const SATURATED = 0.85;

/**
 * What held the searches back, from the cores each side used: the machine's cores (the server
 * and the simulated web share them, with whatever else runs), else the search threads.
 */
export function whatBounds(used: {
  readonly serverCores: number;
  readonly simCores: number;
  readonly cores: number;
  readonly threads: number;
  readonly load: number;
}): string {
  const busy = used.serverCores + used.simCores;
  const others =
    used.load > used.cores / 2 ? ' (other work was running too: the load was above half the cores)' : '';
  if (busy >= SATURATED * used.cores)
    return `the machine's ${used.cores} cores, shared by the server and the simulated web${others}`;
  // The API thread takes a little of the server's cores: the search threads are full before it reaches their count.
  if (used.serverCores >= SATURATED * used.threads) return `the server's ${used.threads} search thread(s)`;
  return `CPU time the processes did not get${others || ' (neither the cores nor the search threads were full)'}`;
}

function searchesFor(quick: boolean): number {
  return quick ? 12 : 24;
}

export const machineCeilingCase: BenchCase = {
  id: '7',
  title: "one machine's ceiling: searches through the API, zero latency, 16 egress identities",
  sims: () => [['builtin', 'zero']],
  async run(ctx) {
    const searches = searchesFor(ctx.quick);
    // The ceiling of the machine: its checks may use every core (a search thread each), as an
    // operator sizing for throughput would set it; `--server searchThreads=1` measures the default.
    const overrides = {
      ...API_OVERRIDES,
      egress: IDENTITIES,
      searchThreads: cpus().length,
      ...ctx.serverOverrides,
    };
    const sim = await ctx.sim('builtin', 'zero');
    const cores = cpus().length;
    const threads = Number(overrides.searchThreads ?? SETTINGS.searchThreads.default);
    const budgets = sustainedRate(loadPlatformSet('builtin', ctx.seed).searched, {
      identities: IDENTITIES.length,
      budget: { perSecond: SETTINGS.budgetPerSecond.default, burst: SETTINGS.budgetBurst.default },
    });
    /**
     * One row: `searches` at once on a fresh server, after `warm` at once on it (0: a cold
     * service, every identity's first connection to every site a full TLS handshake).
     */
    const measureRow = async (warm: number) => {
      const load = loadavg()[0]!;
      ctx.log(
        `case 7: ${searches} searches at once, zero latency, ${IDENTITIES.length} identities, ${warm === 0 ? 'cold service' : `after ${warm} at once`}`,
      );
      const simBefore = await sim.child.usage();
      const level = await measureApiLevel(
        ctx,
        searches,
        overrides,
        serverOn('zero'),
        IDENTITIES.length,
        'zero',
        warm,
      );
      // The sim's CPU from the warm round's end is not apart from its start: read it over both, per search done.
      const simUsage = usageDelta(simBefore, await sim.child.usage());
      const perHour = (level.completed / level.makespanMs) * 3_600_000;
      const serverCpuSPerSearch = level.cpuMsPerSearch / 1000;
      // The sim's CPU spread over the searches it served (it serves nothing else meanwhile).
      const simCpuSPerSearch = level.completed > 0 ? simUsage.cpuMs / 1000 / (level.completed + warm) : null;
      // Were the server alone on the machine's cores: its CPU per search sets the ceiling.
      const cpuCeiling = (cores / serverCpuSPerSearch) * 3600;
      return { warm, load, level, simUsage, perHour, serverCpuSPerSearch, simCpuSPerSearch, cpuCeiling };
    };
    const cold = await measureRow(0);
    const warm = await measureRow(searches);
    return {
      id: this.id,
      title: this.title,
      columns: [
        { key: 'searches', title: 'searches', better: 'none' },
        { key: 'completed', title: 'done', better: 'higher' },
        { key: 'perHour', title: 'searches/hour', better: 'higher' },
        { key: 'makespan', title: 'all done ms', better: 'lower' },
        { key: 'serverCpuS', title: 'server CPU-s/search', better: 'lower', digits: 2 },
        { key: 'serverCores', title: 'server cores', better: 'none', digits: 2 },
        { key: 'simCpuS', title: 'sim CPU-s/search', better: 'none', digits: 2 },
        { key: 'simCores', title: 'sim cores', better: 'none', digits: 2 },
        { key: 'cpuCeiling', title: `CPU ceiling/hour (server alone, ${cores} cores)`, better: 'higher' },
        { key: 'budgetPerHour', title: 'budgets allow/hour', better: 'none' },
        { key: 'boundMs', title: 'politeness bound ms', better: 'none' },
        { key: 'rateLimited', title: '429s', better: 'lower' },
        { key: 'errors', title: 'errors', better: 'lower' },
        { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
        { key: 'load', title: 'load (1 min)', better: 'none', digits: 2 },
      ],
      rows: [cold, warm].map((r) => ({
        label:
          r.warm === 0 ? `${searches} at once, cold service` : `${searches} at once, after ${r.warm} at once`,
        values: {
          searches,
          completed: r.level.completed,
          perHour: Math.round(r.perHour),
          makespan: Math.round(r.level.makespanMs),
          serverCpuS: r.serverCpuSPerSearch,
          serverCores: r.level.cores,
          simCpuS: r.simCpuSPerSearch,
          simCores: r.simUsage.cores,
          cpuCeiling: Math.round(r.cpuCeiling),
          budgetPerHour: Math.round(budgets.perHour),
          boundMs: Math.round(r.level.boundMs),
          rateLimited: r.level.rateLimited,
          errors: r.level.errors,
          maxRssMb: Math.round(r.level.maxRssMb),
          load: r.load,
        },
      })),
      targets: [
        {
          text: `a ${cores}-core machine sustains at least ${CEILING_TARGET} searches an hour when budgets are not the bound (${Math.round(warm.perHour)} on a service that has run a round; ${Math.round(cold.perHour)} cold)`,
          value: warm.perHour,
          met: warm.level.completed === searches ? warm.perHour >= CEILING_TARGET : null,
        },
      ],
      notes: [
        `rows: the same ${searches} names on a fresh server each; the second row's server first ran ${searches} other searches at once to the end (names of the pool with as many hits, so no measured name finds a cached outcome): a sustained rate meets a service whose connections, TLS sessions and compiled code are warm, where a cold one pays every identity's first full TLS handshake to every site (${IDENTITIES.length} identities x ~1,235 sites); the target reads the second row`,
        `searches/hour = searches done ÷ the time until all were done; the budgets (${IDENTITIES.length} identities x ${SETTINGS.budgetPerSecond.default}/s) allow ${Math.round(budgets.perHour)} an hour, set by ${budgets.origin} (${budgets.platforms} platforms a search), and the politeness bound is ${Math.round(warm.level.boundMs)} ms, so they are not the bound`,
        `what bounds it: ${whatBounds({ serverCores: warm.level.cores, simCores: warm.simUsage.cores, cores, threads, load: warm.load })}. The server used ${warm.level.cores.toFixed(2)} cores and the simulated web ${warm.simUsage.cores.toFixed(2)}, ${(warm.level.cores + warm.simUsage.cores).toFixed(2)} of the ${cores}; the 1-minute load was ${warm.load.toFixed(2)} at the start (other work on the machine included). The server runs its checks on ${threads} search thread(s) (searchThreads), sharing the request budgets, so it uses at most about ${threads} core(s) for checks plus its API thread. Were the server alone on the ${cores} cores with its checks spread over them, ${warm.serverCpuSPerSearch.toFixed(2)} CPU-s a search would allow ${Math.round(warm.cpuCeiling)} searches an hour`,
        `sim CPU-s/search = the simulated web's CPU (its process, user + system) from the first search's start to the last's end ÷ the searches it served (the warm-up round's included): on this machine it takes cores the server would have, while in production the sites are elsewhere; it answers from synthesized answers it keeps (src/sim/answer-memo.ts), so most of what remains is TLS and HTTP on loopback (bench/results/history.md, "what the simulated web costs")`,
        `server settings: ${JSON.stringify(overrides)}; maxRunningSearches ${String(overrides.maxRunningSearches ?? SETTINGS.maxRunningSearches.default)}, concurrency ${String(settingOf(overrides, 'concurrency'))}`,
      ],
      settings: { ...overrides, searches },
    };
  },
};
