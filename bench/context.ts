/**
 * What every case gets: the options of the run, the simulated webs (started
 * once per platform set and profile, shared by the cases), a memo so a
 * measurement used by two cases (case 1 and the growth case) is made once, and
 * the folder for data and CA files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LatencyProfile } from '../src/sim/latency.js';
import { Child } from './child.js';
import type { PlatformSetId } from './platform-set.js';
import type { CaseResult } from './results.js';
import type { SimInput, SimReady } from './sim-child.js';

/**
 * Idle keep-alive of the simulated platforms. Large sites keep idle connections
 * open a minute or more (nginx's default is 75 s); Node's 5 s would make every
 * search of a busy service open new connections.
 */
export const SIM_KEEP_ALIVE_MS = 60_000;

/**
 * How long a simulated web may take to be ready: the ones a run needs start at once,
 * each making a certificate for every host of its set, on the same cores.
 */
const SIM_READY_TIMEOUT_MS = 300_000;

export interface SimHandle {
  readonly child: Child<SimReady>;
  readonly connectTo: string[];
  readonly caFile: string;
}

export interface BenchContext {
  readonly quick: boolean;
  readonly seed: number;
  /** Server settings for the API cases, from --server (e.g. maxRunningSearches=50). */
  readonly serverOverrides: Readonly<Record<string, string>>;
  readonly workDir: string;
  readonly log: (text: string) => void;
  sim(set: PlatformSetId, profile: LatencyProfile): Promise<SimHandle>;
  memo<T>(key: string, measure: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface BenchCase {
  /** Shown and selected with --case. */
  readonly id: string;
  readonly title: string;
  /** Cases whose measurements this one reads, so they run first (when selected). */
  readonly after?: readonly string[];
  /** The simulated webs it uses, started together before the first case. */
  sims(quick: boolean): readonly (readonly [PlatformSetId, LatencyProfile])[];
  run(ctx: BenchContext): Promise<CaseResult>;
}

export function createContext(options: {
  quick: boolean;
  seed: number;
  serverOverrides: Readonly<Record<string, string>>;
  workDir: string;
  log: (text: string) => void;
}): BenchContext {
  const sims = new Map<string, Promise<SimHandle>>();
  const memos = new Map<string, Promise<unknown>>();
  return {
    ...options,
    sim(set, profile) {
      const key = `${set}:${profile}`;
      let handle = sims.get(key);
      if (!handle) {
        options.log(`starting the simulated web: ${set}, ${profile} latency`);
        const input: SimInput = { set, profile, seed: options.seed, keepAliveMs: SIM_KEEP_ALIVE_MS };
        handle = Child.start<SimReady>('./sim-child.ts', input, SIM_READY_TIMEOUT_MS).then((child) => {
          const caFile = join(options.workDir, `sim-ca-${set}-${profile}.pem`);
          writeFileSync(caFile, child.ready.caCert);
          if (child.ready.problems > 0)
            options.log(`warning: the simulated web cannot emulate ${child.ready.problems} platforms`);
          return { child, connectTo: child.ready.connectTo, caFile };
        });
        sims.set(key, handle);
      }
      return handle;
    },
    memo<T>(key: string, measure: () => Promise<T>): Promise<T> {
      let value = memos.get(key);
      if (!value) {
        value = measure();
        memos.set(key, value);
      }
      return value as Promise<T>;
    },
    async close() {
      const handles = await Promise.allSettled([...sims.values()]);
      await Promise.all(handles.map((h) => (h.status === 'fulfilled' ? h.value.child.stop() : undefined)));
    },
  };
}
