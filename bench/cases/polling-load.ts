/**
 * Case 5: polling load. Many clients on loopback, each polling its own running
 * search once a second, plus Server-Sent Events listeners: requests served per
 * second, poll latency, errors, and the server's CPU and memory.
 */

import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { SETTINGS } from '../../src/config.js';
import type { BenchCase } from '../context.js';
import { startSearch } from '../http-client.js';
import { measure } from '../process-usage.js';
import { type ServerOverrides, singleProcessServer } from '../server.js';
import { distribution } from '../stats.js';
import { measurePressure, PRESSURE_FULL, PRESSURE_OVERRIDES, PRESSURE_QUICK } from './polling-pressure.js';

/**
 * Every client is 127.0.0.1, so the per-client read limit (1200 a minute) is
 * raised to let 1000 clients poll; the queue holds every client's search.
 */
export const POLLING_OVERRIDES: ServerOverrides = {
  readLimit: 10_000_000,
  streamLimit: 10_000,
  freeLimit: 1_000_000,
  maxQueuedSearches: 100_000,
};

interface Plan {
  readonly clients: number;
  readonly seconds: number;
  readonly listeners: number;
}

/**
 * Before the window, each client connects and polls once, spread over this
 * long: a thousand connections opened in the same second overflow the
 * server's accept queue (Node's listen backlog is 511) and wait for SYN
 * retransmits, which measures the burst rather than the polling.
 */
const RAMP_MS = 5_000;

const FULL: Plan = { clients: 1000, seconds: 60, listeners: 50 };
const QUICK: Plan = { clients: 200, seconds: 15, listeners: 10 };
const POLL_TARGET_P99_MS = 50;
const HEALTHZ_TARGET_P99_MS = 50;

/** Reads an event stream until `signal` aborts; counts events; true if it ended early or badly. */
async function listen(
  pool: Pool,
  id: string,
  signal: AbortSignal,
  count: (n: number) => void,
): Promise<boolean> {
  try {
    const response = await pool.request({ method: 'GET', path: `/api/search/${id}/events`, signal });
    if (response.statusCode !== 200) {
      await response.body.text();
      return true;
    }
    for await (const chunk of response.body) count((chunk.toString('utf8').match(/^event: /gm) ?? []).length);
    // The stream ends on its own when the search is done; that is no error.
    return false;
  } catch {
    return !signal.aborted;
  }
}

const pollingOnly: BenchCase = {
  id: '5',
  title: 'polling load: clients polling their running search once a second, plus SSE listeners',
  sims: () => [['builtin', 'realistic']],
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    ctx.log(`case 5: ${plan.clients} polling clients for ${plan.seconds} s, ${plan.listeners} SSE listeners`);
    const server = await singleProcessServer(ctx, { ...POLLING_OVERRIDES, ...ctx.serverOverrides });
    const pool = new Pool(server.url, { connections: plan.clients, keepAliveTimeout: 120_000 });
    const ssePool = new Pool(server.url, { connections: plan.listeners });
    const stopListening = new AbortController();
    // Every listener's request follows this one signal: not a leak.
    setMaxListeners(plan.listeners + 1, stopListening.signal);
    try {
      // Every client's own search, created a few at a time.
      const ids: string[] = new Array(plan.clients);
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < plan.clients) {
            const i = next++;
            ids[i] = (await startSearch(pool, `poll${i}`)).queryId;
          }
        }),
      );
      let events = 0;
      const listeners = Array.from({ length: plan.listeners }, (_, i) =>
        listen(ssePool, ids[i]!, stopListening.signal, (n) => {
          events += n;
        }),
      );

      const poll = async (id: string): Promise<number | undefined> => {
        const sent = performance.now();
        try {
          const response = await pool.request({ method: 'GET', path: `/api/search?id=${id}` });
          await response.body.text();
          return response.statusCode === 200 ? performance.now() - sent : undefined;
        } catch {
          return undefined;
        }
      };
      let rampErrors = 0;
      const rampStart = performance.now();
      await Promise.all(
        ids.map(async (id, i) => {
          await sleep(rampStart + (i / plan.clients) * RAMP_MS - performance.now());
          if ((await poll(id)) === undefined) rampErrors++;
        }),
      );

      const latencies: number[] = [];
      let errors = 0;
      let late = 0;
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      await server.loopDelay(true);
      const { result: windowMs, usage } = await measure(
        () => server.usage(),
        async () => {
          const windowStart = performance.now();
          const windowEnd = windowStart + plan.seconds * 1000;
          await Promise.all(
            ids.map(async (id, i) => {
              // Spread over the first second, then once a second on a fixed schedule.
              let due = windowStart + (i / plan.clients) * 1000;
              for (;;) {
                const wait = due - performance.now();
                if (wait > 0) await sleep(wait);
                else if (wait < -1000) late++;
                if (performance.now() >= windowEnd) return;
                const ms = await poll(id);
                if (ms === undefined) errors++;
                else latencies.push(ms);
                due = Math.max(due + 1000, performance.now());
              }
            }),
          );
          return performance.now() - windowStart;
        },
      );
      const serverLoop = await server.loopDelay(false);
      lag.disable();
      stopListening.abort();
      const sseErrors = (await Promise.all(listeners)).filter(Boolean).length;
      const d = distribution(latencies);
      const totalErrors = errors + sseErrors;
      const p99 = d?.p99 ?? Number.NaN;
      return {
        id: this.id,
        title: this.title,
        columns: [
          { key: 'clients', title: 'clients', better: 'none' },
          { key: 'rps', title: 'requests/s', better: 'higher', digits: 1 },
          { key: 'p50', title: 'p50 ms', better: 'lower', digits: 1 },
          { key: 'p95', title: 'p95 ms', better: 'lower', digits: 1 },
          { key: 'p99', title: 'p99 ms', better: 'lower', digits: 1 },
          { key: 'max', title: 'max ms', better: 'lower' },
          { key: 'errors', title: 'errors', better: 'lower' },
          { key: 'sse', title: 'SSE listeners', better: 'none' },
          { key: 'sseEvents', title: 'SSE events', better: 'none' },
          { key: 'cores', title: 'server cores', better: 'lower', digits: 2 },
          { key: 'cpuMsPerRequest', title: 'CPU ms/request', better: 'lower', digits: 2 },
          { key: 'maxRssMb', title: 'peak RSS MB', better: 'lower' },
        ],
        rows: [
          {
            label: `${plan.seconds} s`,
            values: {
              clients: plan.clients,
              rps: latencies.length / (windowMs / 1000),
              p50: d?.p50 ?? null,
              p95: d?.p95 ?? null,
              p99: d?.p99 ?? null,
              max: d ? Math.round(d.max) : null,
              errors: totalErrors,
              sse: plan.listeners,
              sseEvents: events,
              cores: usage.cores,
              cpuMsPerRequest: latencies.length ? usage.cpuMs / latencies.length : null,
              maxRssMb: Math.round(usage.maxRssMb),
            },
          },
        ],
        targets: [
          { text: `no errors (${totalErrors})`, value: totalErrors, met: totalErrors === 0 },
          {
            text: `poll p99 under ${POLL_TARGET_P99_MS} ms (${p99.toFixed(1)})`,
            value: d?.p99 ?? null,
            met: d ? d.p99 < POLL_TARGET_P99_MS : null,
          },
        ],
        notes: [
          `latency = request sent to whole body read, measured by the client (its event loop p99 lag was ${(lag.percentile(99) / 1e6).toFixed(1)} ms; polls more than a second late: ${late})`,
          `server event-loop delay during the window: p50 ${serverLoop.p50.toFixed(1)} ms, p99 ${serverLoop.p99.toFixed(1)} ms, max ${serverLoop.max.toFixed(0)} ms`,
          `errors = failed or non-200 polls (${errors}) + SSE streams refused or broken (${sseErrors}); before the window, ${plan.clients} connections opened over ${RAMP_MS / 1000} s with ${rampErrors} failed first polls`,
          `the searches are real: the server runs ${SETTINGS.maxRunningSearches.default} at a time (its default) on its search thread while the rest wait queued, which polls report as running`,
          'server CPU and peak RSS: the server process only; all clients run in the benchmark process',
        ],
        settings: {
          ...POLLING_OVERRIDES,
          why: 'every client is 127.0.0.1: the per-client read limit (default 1200/min) would refuse 1000 clients, and the per-client stream cap (default 20) the SSE listeners; the queue must hold 1000 searches',
        },
      };
    } finally {
      stopListening.abort();
      await Promise.allSettled([pool.close(), ssePool.destroy()]);
      await server.stop();
    }
  },
};

/**
 * The polling window, then (on a server of its own) two more lines:
 * /healthz with many event streams open on one search, and keyed clients
 * while unkeyed connections are refused with 429.
 */
export const pollingLoadCase: BenchCase = {
  ...pollingOnly,
  async run(ctx) {
    const base = await pollingOnly.run(ctx);
    const plan = ctx.quick ? PRESSURE_QUICK : PRESSURE_FULL;
    ctx.log(
      `case 5: ${plan.streams} event streams on one search, then ${plan.flood} unkeyed connections refused with 429`,
    );
    const p = await measurePressure(ctx, singleProcessServer, plan);
    const line = (d: typeof p.healthz) => ({
      p50: d?.p50 ?? null,
      p95: d?.p95 ?? null,
      p99: d?.p99 ?? null,
      max: d ? Math.round(d.max) : null,
    });
    const healthzP99 = p.healthz?.p99 ?? Number.NaN;
    return {
      ...base,
      rows: [
        ...base.rows,
        {
          label: `/healthz, ${plan.streams} event streams on one search`,
          values: {
            clients: 1,
            rps: p.healthz ? p.healthz.count / plan.seconds : null,
            ...line(p.healthz),
            errors: p.healthzErrors,
            sse: p.streamsOpen,
            sseEvents: p.streamEvents,
          },
        },
        {
          label: `keyed polls, ${plan.flood} unkeyed connections refused with 429`,
          values: {
            clients: plan.keyed,
            rps: p.keyed ? p.keyed.count / plan.seconds : null,
            ...line(p.keyed),
            errors: p.keyedErrors,
          },
        },
      ],
      targets: [
        ...base.targets,
        {
          text: `/healthz p99 under ${HEALTHZ_TARGET_P99_MS} ms with ${plan.streams} event streams on one search (${healthzP99.toFixed(1)})`,
          value: p.healthz?.p99 ?? null,
          met: p.healthz ? p.healthz.p99 < HEALTHZ_TARGET_P99_MS : null,
        },
      ],
      notes: [
        ...base.notes,
        `event streams: ${p.streamsOpen} of ${plan.streams} opened (keyed, over 3 s) on one running search and received ${p.streamEvents} events while /healthz was asked every 50 ms for ${plan.seconds} s; server event-loop delay meanwhile p99 ${p.streamsLoop.p99.toFixed(1)} ms, max ${p.streamsLoop.max.toFixed(0)} ms; the benchmark process's own p99 lag ${p.clientLagP99.toFixed(1)} ms`,
        `flood: ${plan.flood} unkeyed connections back to back, ${p.floodRps.toFixed(0)} requests/s, ${p.floodRefused} answered 429 and ${p.floodOther} otherwise (the first are served until the free read limit is used up); ${plan.keyed} keyed clients polled once a second meanwhile (server event-loop delay p99 ${p.floodLoop.p99.toFixed(1)} ms). All clients share the benchmark process, so its own load is in these figures`,
      ],
      settings: {
        ...base.settings,
        pressureServer: {
          ...PRESSURE_OVERRIDES,
          why: 'streams come from 127.0.0.1 with one key: the per-key and per-search stream caps are raised; the free read limit stays at its default so the flood is refused',
        },
      },
    };
  },
};
