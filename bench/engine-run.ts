/**
 * Runs searches in a fresh engine process against a simulated web, and
 * returns what the engine process measured. Shared by the engine cases.
 */
import type { LatencyProfile } from '../src/sim/latency.js';
import { Child } from './child.js';
import type { BenchContext } from './context.js';
import { watchDescendants } from './descendants.js';
import type { EngineInput, EngineReady, SearchesReport } from './engine-child.js';
import type { PlatformSetId } from './platform-set.js';

export async function runEngineSearches(
  ctx: BenchContext,
  set: PlatformSetId,
  profile: LatencyProfile,
  batches: readonly (readonly string[])[],
  latencyFile?: string,
  /** Settings in place of the command line's defaults (names as in src/config.ts). */
  overrides: EngineInput['overrides'] = {},
  /** Node's flags for the engine process (its heap). @default none: Node's own */
  nodeFlags: readonly string[] = [],
  /** Measure the engine's descendants too (the browser it launches), from this process. @default false */
  descendants = false,
  /** Platform ids whose outcomes the reports give one by one. @default none */
  traced: readonly string[] = [],
): Promise<{ ready: EngineReady; reports: SearchesReport[] }> {
  const sim = await ctx.sim(set, profile);
  const engine = await Child.start<EngineReady>(
    './engine-child.ts',
    {
      set,
      seed: ctx.seed,
      connectTo: sim.connectTo,
      caFile: sim.caFile,
      overrides,
      ...(latencyFile ? { latencyFile } : {}),
      ...(traced.length > 0 ? { traced } : {}),
    } satisfies EngineInput,
    undefined,
    nodeFlags,
  );
  try {
    const reports: SearchesReport[] = [];
    for (const usernames of batches) {
      const search = () => engine.request<SearchesReport>('searches', usernames);
      if (!descendants) reports.push(await search());
      else {
        const { result, usage } = await watchDescendants(engine.pid, search);
        reports.push({ ...result, descendants: usage });
      }
    }
    return { ready: engine.ready, reports };
  } finally {
    await engine.stop();
  }
}
