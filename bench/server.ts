/**
 * How an API case gets a server to load. One interface, so a case can be run
 * against another deployment (the cluster: an API process and workers
 * sharing Redis) by adding a launcher; usage is the sum over the processes.
 */
import { join } from 'node:path';
import type { SettingName } from '../src/config.js';
import type { LatencyProfile } from '../src/sim/latency.js';
import { Child } from './child.js';
import type { BenchContext } from './context.js';
import type { ProcessUsage } from './process-usage.js';
import type { LoopDelay, ServerInput, ServerReady } from './server-child.js';
import type { ThreadCpuMs } from './thread-cpu.js';

export interface ServerHandle {
  readonly url: string;
  /** A professional API key valid on this server. */
  readonly proKey: string;
  /** CPU and memory of every server process, summed (peak RSS: sum of each process's peak). */
  usage(): Promise<ProcessUsage>;
  /** Where each process that runs checks serves /metrics (the server itself, or the cluster's workers). */
  readonly checkers: readonly string[];
  /** Event-loop delay of the process that answers HTTP, since the last reset. */
  loopDelay(reset: boolean): Promise<LoopDelay>;
  /** CPU by thread group of the one server process since it started (null without /proc); absent for several processes. */
  threadCpu?(): Promise<ThreadCpuMs | null>;
  stop(): Promise<void>;
}

export type ServerOverrides = Partial<Record<SettingName, unknown>>;

export type ServerLauncher = (ctx: BenchContext, overrides: ServerOverrides) => Promise<ServerHandle>;

let serial = 0;

/** `userscout serve` as shipped: one process, SQLite, the in-process runner; against the simulated web under `profile`. */
export function serverOn(profile: LatencyProfile): ServerLauncher {
  return async (ctx, overrides) => {
    const sim = await ctx.sim('builtin', profile);
    const child = await Child.start<ServerReady>('./server-child.ts', {
      dataDir: join(ctx.workDir, `server-${++serial}`),
      connectTo: sim.connectTo,
      caFile: sim.caFile,
      overrides,
    } satisfies ServerInput);
    return {
      url: child.ready.url,
      proKey: child.ready.proKey,
      checkers: [child.ready.url],
      usage: () => child.usage(),
      loopDelay: (reset) => child.request<LoopDelay>('loopDelay', reset),
      threadCpu: () => child.request<ThreadCpuMs | null>('threadCpu'),
      stop: () => child.stop(),
    };
  };
}

/** `userscout serve` as shipped, realistic latency. */
export const singleProcessServer: ServerLauncher = serverOn('realistic');
