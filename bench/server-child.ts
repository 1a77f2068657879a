/**
 * The REST service in a process of its own (the built-in catalogue, SQLite in
 * a fresh folder), with one professional API key, so the server's CPU and
 * memory are measured apart from the clients that load it.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createKey } from '../src/cli/keys.js';
import { loadConfig, type SettingName } from '../src/config.js';
import { createService } from '../src/service.js';
import { runChild } from './child.js';
import { clockTicksPerSecond } from './descendants.js';
import { METRICS_TOKEN } from './prometheus.js';
import {
  groupThreadCpu,
  parseTaskStat,
  type ThreadCpuMs,
  type ThreadSample,
  v8PoolSize,
} from './thread-cpu.js';

export interface ServerInput {
  readonly dataDir: string;
  readonly connectTo: string[];
  readonly caFile: string;
  readonly overrides: Partial<Record<SettingName, unknown>>;
}

/** The server's event-loop delay since the last reset (ms): what every request waited at least. */
export interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

const TASKS = '/proc/self/task';

/** This process's threads now; null where /proc is not (not Linux). */
function readThreads(): ThreadSample[] | null {
  try {
    return readdirSync(TASKS).flatMap((tid) => {
      try {
        return [
          {
            tid: Number(tid),
            name: readFileSync(`${TASKS}/${tid}/comm`, 'utf8').trim(),
            ...parseTaskStat(readFileSync(`${TASKS}/${tid}/stat`, 'utf8')),
          },
        ];
      } catch {
        return []; // it ended between the listing and the read
      }
    });
  } catch {
    return null;
  }
}

export interface ServerReady {
  readonly url: string;
  readonly proKey: string;
  readonly platforms: number;
}

await runChild<ServerInput, ServerReady>(async (input) => {
  mkdirSync(input.dataDir, { recursive: true });
  // libuv starts its pool at its first job: one here, so the pool's threads are not taken for the service's.
  await access(input.dataDir);
  const beforeService = new Set((readThreads() ?? []).map((t) => t.tid));
  const groupOptions = {
    pid: process.pid,
    beforeService,
    v8Threads: v8PoolSize([...(process.env.NODE_OPTIONS?.split(/\s+/) ?? []), ...process.execArgv]),
    ticksPerSecond: clockTicksPerSecond(),
  };
  const config = loadConfig(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: input.dataDir,
      connectTo: input.connectTo,
      caFile: input.caFile,
      refusePrivate: false,
      metricsToken: METRICS_TOKEN,
      ...(process.env.BENCH_NO_BROWSER ? { browserPath: '/nonexistent/chromium' } : {}),
      ...input.overrides,
    },
    {},
  );
  const service = await createService(config);
  // Listening first: in cluster mode it waits until Redis is ready, which the key needs.
  const url = await service.listen();
  const { key } = await createKey(service.store, 'benchmark', 'professional');
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return {
    ready: { url, proKey: key, platforms: service.catalogue.platforms.length },
    handlers: {
      loopDelay: (reset: boolean): LoopDelay => {
        const delay = { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
        if (reset) loop.reset();
        return delay;
      },
      /** CPU by thread group since the process started (thread-cpu.ts); null without /proc. */
      threadCpu: (): ThreadCpuMs | null => {
        const threads = readThreads();
        return threads && groupThreadCpu(threads, groupOptions);
      },
    },
    stop: () => service.close(),
  };
});
