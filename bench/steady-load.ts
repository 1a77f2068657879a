/**
 * A closed-loop load through the API: a fixed number of searches kept in
 * flight, each replaced by a new one as soon as its client sees it end, so a
 * service whose queue holds the surplus is never short of work. Every search's
 * creation and completion times (the server's) are kept, to count the
 * completions of a window once the load has run a while.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { runOneSearch } from './cases/api-searches.js';

export interface SearchSeen {
  /** The server's times (ms epoch); completedAt only for a search seen ending. */
  readonly createdAt: number;
  readonly completedAt: number | undefined;
  /** Ended as an error, or the API refused or failed a call. */
  readonly error: boolean;
}

export interface SteadyLoad {
  /** Searches seen ending so far. */
  done(): number;
  /**
   * Starts no more searches; resolves once every client has seen its search
   * end, or `at` (ms epoch) has passed, with every search seen.
   */
  stop(at: number): Promise<SearchSeen[]>;
}

/** After a call the API refused or failed, a client waits this long before its next search. */
const AFTER_FAILURE_MS = 1000;

export function keepInFlight(
  pool: Pool,
  options: {
    readonly inFlight: number;
    /** Usernames, taken in turn. */
    readonly names: readonly string[];
    readonly apiKey: string | undefined;
    /** Platform ids each search covers (a default search when absent). */
    readonly platforms?: readonly string[] | undefined;
  },
): SteadyLoad {
  const seen: SearchSeen[] = [];
  let next = 0;
  let stopped = false;
  let deadline = Number.POSITIVE_INFINITY;
  const lane = async () => {
    while (!stopped) {
      const username = options.names[next++ % options.names.length]!;
      try {
        const r = await runOneSearch(pool, username, options.apiKey, () => deadline, options.platforms);
        seen.push({
          createdAt: Date.parse(r.state.createdAt),
          completedAt: r.finished && r.state.completedAt ? Date.parse(r.state.completedAt) : undefined,
          error: r.error !== undefined || r.state.status === 'error',
        });
      } catch {
        seen.push({ createdAt: Date.now(), completedAt: undefined, error: true });
        await sleep(AFTER_FAILURE_MS);
      }
    }
  };
  const lanes = Array.from({ length: options.inFlight }, lane);
  return {
    done: () => seen.filter((s) => s.completedAt !== undefined).length,
    async stop(at) {
      stopped = true;
      deadline = at;
      await Promise.all(lanes);
      return seen;
    },
  };
}
