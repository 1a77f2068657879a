/**
 * Two lines of case 5: how the server answers others while
 * (a) many event streams follow one search, and (b) a flood of unkeyed
 * connections is refused with 429. A server of its own, at the default read
 * limit (so the flood is refused), with the stream caps raised (every stream
 * comes from 127.0.0.1).
 */
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { BenchContext } from '../context.js';
import { startSearch } from '../http-client.js';
import type { ServerLauncher } from '../server.js';
import type { LoopDelay } from '../server-child.js';
import { distribution } from '../stats.js';

export interface PressurePlan {
  /** Event streams opened on one search. */
  readonly streams: number;
  /** Unkeyed connections sending requests back to back, refused with 429. */
  readonly flood: number;
  /** Keyed clients polling once a second during the flood. */
  readonly keyed: number;
  readonly seconds: number;
}

export const PRESSURE_FULL: PressurePlan = { streams: 1000, flood: 1000, keyed: 100, seconds: 15 };
export const PRESSURE_QUICK: PressurePlan = { streams: 200, flood: 200, keyed: 20, seconds: 5 };

export const PRESSURE_OVERRIDES = {
  proStreamLimit: 100_000,
  searchStreamLimit: 100_000,
  proReadLimit: 10_000_000,
  maxQueuedSearches: 100_000,
};

export interface PressureResult {
  readonly healthz: ReturnType<typeof distribution>;
  readonly streamsOpen: number;
  readonly streamEvents: number;
  readonly healthzErrors: number;
  /** The server's event-loop delay while the streams were open. */
  readonly streamsLoop: LoopDelay;
  /** The benchmark process's own event-loop lag then (its clients read every stream). */
  readonly clientLagP99: number;
  readonly floodLoop: LoopDelay;
  readonly keyed: ReturnType<typeof distribution>;
  readonly keyedErrors: number;
  readonly floodRps: number;
  readonly floodRefused: number;
  readonly floodOther: number;
}

/** Requests `path` once every `everyMs` until `end`; latencies of 200 answers, errors counted. */
async function probe(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  everyMs: number,
  end: number,
  latencies: number[],
): Promise<number> {
  let errors = 0;
  while (performance.now() < end) {
    const sent = performance.now();
    try {
      const response = await pool.request({ method: 'GET', path, headers });
      await response.body.text();
      if (response.statusCode === 200) latencies.push(performance.now() - sent);
      else errors++;
    } catch {
      errors++;
    }
    await sleep(Math.max(0, sent + everyMs - performance.now()));
  }
  return errors;
}

export async function measurePressure(
  ctx: BenchContext,
  launch: ServerLauncher,
  plan: PressurePlan,
): Promise<PressureResult> {
  const server = await launch(ctx, { ...PRESSURE_OVERRIDES, ...ctx.serverOverrides });
  const key = { 'x-api-key': server.proKey };
  const control = new Pool(server.url, { connections: 4 });
  const streamPool = new Pool(server.url, { connections: plan.streams });
  const floodPool = new Pool(server.url, { connections: plan.flood });
  const keyedPool = new Pool(server.url, { connections: plan.keyed });
  const stopStreams = new AbortController();
  // Every stream's request follows this one signal: not a leak.
  setMaxListeners(plan.streams + 1, stopStreams.signal);
  try {
    // (a) Event streams on one running search (keyed, so the free read limit stays whole).
    const { queryId } = await startSearch(control, 'pressure-streams', server.proKey);
    let streamsOpen = 0;
    let streamEvents = 0;
    const streams = Array.from({ length: plan.streams }, async (_, i) => {
      await sleep((i / plan.streams) * 3_000);
      try {
        const response = await streamPool.request({
          method: 'GET',
          path: `/api/search/${queryId}/events`,
          headers: key,
          signal: stopStreams.signal,
        });
        if (response.statusCode !== 200) return void (await response.body.text());
        streamsOpen++;
        for await (const chunk of response.body)
          streamEvents += (chunk.toString('utf8').match(/^event: /gm) ?? []).length;
      } catch {
        // aborted at the end of the window
      }
    });
    await sleep(3_500);
    const healthz: number[] = [];
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    await server.loopDelay(true);
    const healthzEnd = performance.now() + plan.seconds * 1000;
    const healthzErrors = await probe(control, '/healthz', {}, 50, healthzEnd, healthz);
    const streamsLoop = await server.loopDelay(false);
    lag.disable();
    stopStreams.abort();
    await Promise.all(streams);

    // (b) Unkeyed connections back to back (refused past the free read limit) while keyed clients poll.
    const { queryId: polled } = await startSearch(control, 'pressure-keyed', server.proKey);
    let refused = 0;
    let other = 0;
    const floodEnd = performance.now() + plan.seconds * 1000 + 2_000;
    const floodStart = performance.now();
    const flood = Array.from({ length: plan.flood }, async () => {
      while (performance.now() < floodEnd) {
        try {
          const response = await floodPool.request({ method: 'GET', path: `/api/search?id=${polled}` });
          await response.body.text();
          if (response.statusCode === 429) refused++;
          else other++;
        } catch {
          other++;
        }
      }
    });
    await sleep(2_000); // the free limit is used up and the flood is refused from here on
    const keyed: number[] = [];
    await server.loopDelay(true);
    const keyedEnd = performance.now() + plan.seconds * 1000;
    const keyedErrors = (
      await Promise.all(
        Array.from({ length: plan.keyed }, async (_, i) => {
          await sleep((i / plan.keyed) * 1000);
          return probe(keyedPool, `/api/search?id=${polled}`, key, 1000, keyedEnd, keyed);
        }),
      )
    ).reduce((a, b) => a + b, 0);
    const floodLoop = await server.loopDelay(false);
    await Promise.all(flood);
    const floodSeconds = (performance.now() - floodStart) / 1000;
    return {
      healthz: distribution(healthz),
      streamsOpen,
      streamEvents,
      healthzErrors,
      streamsLoop,
      clientLagP99: lag.percentile(99) / 1e6,
      floodLoop,
      keyed: distribution(keyed),
      keyedErrors,
      floodRps: (refused + other) / floodSeconds,
      floodRefused: refused,
      floodOther: other,
    };
  } finally {
    stopStreams.abort();
    await Promise.allSettled([
      control.close(),
      streamPool.destroy(),
      floodPool.destroy(),
      keyedPool.destroy(),
    ]);
    await server.stop();
  }
}
