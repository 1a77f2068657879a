/**
 * The engine in a process of its own, as the CLI runs it: one engine, searches
 * driven from here, measured from inside (CPU, peak RSS) around the searches only.
 */

import type { Transport } from '../src/catalogue/platform.js';
import {
  maybeSlow,
  mergeLatencies,
  readLatencyMemory,
  writeLatencyMemory,
} from '../src/cli/latency-memory.js';
import { loadConfig, type SettingName } from '../src/config.js';
import { createEngine } from '../src/engine/create-engine.js';
import type { Engine } from '../src/engine/engine.js';
import { type TallyReading, TransportTally } from '../src/engine/transport/transport-tally.js';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../src/engine/verdict/outcome.js';
import { slowestFirst } from '../src/runner/check-order.js';
import { SLOW_SHARE_OF_TIMEOUT } from '../src/tuning.js';
import { runChild } from './child.js';
import type { DescendantUsage } from './descendants.js';
import { loadPlatformSet, type PlatformSetId } from './platform-set.js';
import { measure, readUsage, type UsageDelta } from './process-usage.js';

export interface EngineInput {
  readonly set: PlatformSetId;
  readonly seed: number;
  readonly connectTo: string[];
  readonly caFile: string;
  readonly overrides: Partial<Record<SettingName, unknown>>;
  /**
   * The CLI's latency memory (src/cli/latency-memory.ts): when set, checks go
   * slowest first by what the file remembers, and each search updates it, as
   * `userscout search` does. Absent: catalogue order, nothing remembered.
   */
  readonly latencyFile?: string;
  /** Platform ids whose outcomes are reported one by one (`traced`). @default none */
  readonly traced?: readonly string[];
}

/** How one platform's check ended: the transport of its last answer, its status and reason. */
export interface TracedOutcome {
  readonly transport: Transport;
  readonly status: OutcomeStatus;
  readonly reason?: OutcomeReason;
}

export interface EngineReady {
  readonly platforms: number;
  /** Catalogue load and engine creation (ms). */
  readonly startupMs: number;
  readonly timeoutMs: number;
}

export interface SearchesReport {
  readonly searches: number;
  readonly outcomes: number;
  /** Outcomes for which a request was sent (not refused by a username rule). */
  readonly checks: number;
  readonly wallMs: number;
  /** This process's CPU and memory over the searches. */
  readonly usage: UsageDelta;
  readonly statuses: Partial<Record<OutcomeStatus, number>>;
  /** Platform ids that were requested, in the order their outcome came. */
  readonly checkedIds: string[];
  /** When each outcome came, from the start (ms), same order as checkedIds. */
  readonly doneAtMs: number[];
  /** Outcomes by the transport that got their answer (evidence.transport; http when it names none). */
  readonly transports: Partial<Record<Transport, number>>;
  /** The outcomes of the platforms the input traced, by id. */
  readonly traced: Readonly<Record<string, TracedOutcome>>;
  /** What the costlier transports cost over the searches: escalations, launches, slot waits (each a difference). */
  readonly tally: TallyReading;
  /**
   * The engine's descendants (the browser it launched): their CPU over the searches and
   * their largest resident memory, measured from outside (engine-run.ts), when asked for.
   */
  readonly descendants?: DescendantUsage;
}

await runChild<EngineInput, EngineReady>(async (input) => {
  const started = performance.now();
  const set = loadPlatformSet(input.set, input.seed);
  const config = loadConfig(
    { connectTo: input.connectTo, caFile: input.caFile, refusePrivate: false, ...input.overrides },
    {},
    'cli', // the CLI path: its defaults, as `userscout search` runs
  );
  // As `userscout search` does: platforms remembered as slow send their controls with their checks.
  const remembered = readLatencyMemory(input.latencyFile);
  const tally = new TransportTally();
  const engine: Engine = createEngine(config, set.catalogue, {
    tally,
    ...(input.latencyFile
      ? { eagerControls: maybeSlow(remembered, config.timeoutMs * SLOW_SHARE_OF_TIMEOUT) }
      : {}),
  });
  const tracing = new Set(input.traced ?? []);
  const startupMs = performance.now() - started;

  /** Searches for each username in turn (one search at a time, as the CLI does). */
  const searches = async (usernames: string[]): Promise<SearchesReport> => {
    const statuses: Partial<Record<OutcomeStatus, number>> = {};
    const transports: Partial<Record<Transport, number>> = {};
    const checkedIds: string[] = [];
    const doneAtMs: number[] = [];
    const traced: Record<string, TracedOutcome> = {};
    const before = tally.read();
    let outcomes = 0;
    const { result: wallMs, usage } = await measure(readUsage, async () => {
      const t0 = performance.now();
      for (const username of usernames) {
        const memory = readLatencyMemory(input.latencyFile);
        const ordered = input.latencyFile
          ? slowestFirst(set.searched, memory, config.unmeasuredLatencyMs)
          : set.searched;
        const seen: Outcome[] = [];
        for await (const outcome of engine.search(username, ordered)) {
          seen.push(outcome);
          outcomes++;
          statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
          const via = outcome.evidence.transport ?? 'http';
          if (tracing.has(outcome.platformId))
            traced[outcome.platformId] = {
              transport: via,
              status: outcome.status,
              ...(outcome.reason ? { reason: outcome.reason } : {}),
            };
          if (outcome.status === 'invalid') continue;
          transports[via] = (transports[via] ?? 0) + 1;
          checkedIds.push(outcome.platformId);
          doneAtMs.push(Math.round(performance.now() - t0));
        }
        writeLatencyMemory(input.latencyFile, mergeLatencies(memory, seen));
      }
      return performance.now() - t0;
    });
    const after = tally.read();
    const spent = Object.fromEntries(
      Object.entries(after).map(([name, n]) => [name, n - before[name as keyof TallyReading]]),
    ) as TallyReading;
    return {
      searches: usernames.length,
      outcomes,
      checks: checkedIds.length,
      wallMs,
      usage,
      statuses,
      checkedIds,
      doneAtMs,
      transports,
      traced,
      tally: spent,
    };
  };

  return {
    ready: { platforms: set.searched.length, startupMs, timeoutMs: config.timeoutMs },
    handlers: {
      searches: (usernames: string[]) => searches(usernames),
      /** Every outcome of a search for `username`, in the order they came (what a store keeps). */
      outcomes: async (username: string): Promise<Outcome[]> => {
        const outcomes: Outcome[] = [];
        for await (const outcome of engine.search(username, set.searched)) outcomes.push(outcome);
        return outcomes;
      },
    },
    stop: () => engine.close(),
  };
});
