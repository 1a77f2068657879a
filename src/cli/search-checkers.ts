/**
 * Where `userscout search` gets its outcomes: this machine's own engine (its
 * address, its politeness, its latency memory), or a userscout service through
 * the client module (`--server`), which searches from the service's addresses
 * with its history and cache. The command around them prints the same either way.
 */
import { platformsForVariant, type Variant } from '../catalogue/lookalike-names.js';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { UserscoutClient } from '../client/client.js';
import { UserscoutClientError } from '../client/client-error.js';
import type { Config } from '../config.js';
import { createEngine } from '../engine/create-engine.js';
import { ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { ERROR_CODES, type ErrorCode, UserscoutError } from '../errors.js';
import { expectedAnswerMs, slowestFirst } from '../runner/check-order.js';
import type { FollowUp } from '../store/store.js';
import { SLOW_SHARE_OF_TIMEOUT } from '../tuning.js';
import {
  latencyMemoryPath,
  maybeSlow,
  mergeLatencies,
  readLatencyMemory,
  writeLatencyMemory,
} from './latency-memory.js';

export interface CheckRun {
  /** Platforms this search covers. */
  readonly total: number;
  readonly outcomes: AsyncIterable<Outcome>;
  /** The search's id where it has one of its own (on the service). */
  readonly id?: string;
  /** A recursive search's follow-ups, where the service starts them: once its outcomes are read. */
  followUps?(): Promise<FollowUpList>;
}

/** A recursive search's follow-ups as far as they are known; `pending`: the service has not started them all yet. */
export interface FollowUpList {
  readonly followUps: FollowUp[];
  readonly pending: boolean;
}

export interface Checker {
  /** Platform names the results may show (column widths are set before the first). */
  readonly names: readonly string[];
  readonly timeoutMs: number;
  /** Profile URL templates, to find linked accounts; absent when the search runs elsewhere. */
  readonly profileUrls?: ProfileUrlMatcher;
  /**
   * Checks `username`; a lookalike `variant` (its username) only on the platforms
   * whose rule accepts it where the rules are known here (this machine's engine).
   */
  run(username: string, signal: AbortSignal, variant?: Variant, recursive?: boolean): Promise<CheckRun>;
  /** After a search that ran to its end, with everything it found. */
  finished(outcomes: readonly Outcome[]): void;
  close(): Promise<void>;
}

/** The engine in this process, slowest checks first by what earlier runs remembered. */
export function localChecker(config: Config, catalogue: Catalogue, platforms: readonly Platform[]): Checker {
  const memoryPath = latencyMemoryPath(config.latencyMemory);
  let latencies = readLatencyMemory(memoryPath);
  // A slow platform's control goes out with its check: a hit there then waits for no second latency.
  const engine = createEngine(config, catalogue, {
    eagerControls: maybeSlow(latencies, config.timeoutMs * SLOW_SHARE_OF_TIMEOUT),
  });
  return {
    names: platforms.map((p) => p.name),
    timeoutMs: config.timeoutMs,
    profileUrls: new ProfileUrlMatcher(catalogue.platforms),
    async run(username, signal, variant) {
      const chosen = variant ? platformsForVariant(variant, platforms) : platforms;
      const ordered = slowestFirst(chosen, latencies, config.unmeasuredLatencyMs);
      const expectedMs = expectedAnswerMs(latencies, config.unmeasuredLatencyMs);
      return { total: chosen.length, outcomes: engine.search(username, ordered, signal, { expectedMs }) };
    },
    finished(outcomes) {
      latencies = mergeLatencies(latencies, outcomes);
      writeLatencyMemory(memoryPath, latencies);
    },
    close: () => engine.close(),
  };
}

/** A client failure as the command line's error: its exit code follows the HTTP status (4xx usage, else failure). */
export function commandErrorOf(error: unknown): unknown {
  if (!(error instanceof UserscoutClientError)) return error;
  const known = error.code in ERROR_CODES ? (error.code as ErrorCode) : undefined;
  const where = error.requestId ? ` (request ${error.requestId})` : '';
  if (error.code === 'invalid_username') return new UserscoutError('invalid_username', error.message);
  if (error.status === 401 || error.status === 403)
    return new UserscoutError('unauthorized', `the service refused the API key: ${error.message}${where}`);
  if (error.code === 'rate_limited' || error.code === 'queue_full' || error.code === 'deadline_exceeded')
    return new UserscoutError('unavailable', `the service asks to wait: ${error.message}${where}`);
  if (known && ERROR_CODES[known].status < 500) return new UserscoutError(known, `${error.message}${where}`);
  if (error.code === 'network_error')
    return new UserscoutError('network_unavailable', `the service cannot be reached: ${error.message}`);
  return new UserscoutError('unavailable', `the service failed: ${error.message}${where}`);
}

/** How often, and how many times, a recursive search is read for its follow-ups (at most a minute). */
const FOLLOW_UP_READ_MS = 500;
const FOLLOW_UP_READS = 120;

/** A userscout service, through the client: the search runs there and its outcomes stream here. */
export async function remoteChecker(
  client: UserscoutClient,
  filters: {
    categories?: string[];
    platforms?: string[];
    tags?: string[] | undefined;
    top?: boolean | undefined;
    includeNsfw?: boolean;
  },
  followUpReads: { readonly every: number; readonly times: number } = {
    every: FOLLOW_UP_READ_MS,
    times: FOLLOW_UP_READS,
  },
): Promise<Checker> {
  const list = await client.platforms().catch((error: unknown) => {
    throw commandErrorOf(error);
  });
  return {
    names: list.platforms.map((p) => p.name),
    // The service's own deadline per platform is not published; columns allow for a 5-digit time.
    timeoutMs: 99_999,
    async run(username, signal, _variant, recursive) {
      const started = await client
        .start(username, {
          ...(filters.categories ? { categories: filters.categories as never } : {}),
          ...(filters.platforms ? { platforms: filters.platforms } : {}),
          ...(filters.tags ? { tags: filters.tags } : {}),
          ...(filters.top ? { top: true } : {}),
          ...(filters.includeNsfw !== undefined ? { includeNsfw: filters.includeNsfw } : {}),
          ...(recursive ? { recursive: true } : {}),
          signal,
        })
        .catch((error: unknown) => {
          throw commandErrorOf(error);
        });
      async function* outcomes(): AsyncGenerator<Outcome> {
        try {
          for await (const event of client.follow(started.queryId, { signal, deadlineMs: 24 * 3_600_000 })) {
            if (event.type === 'result') yield event.result as Outcome;
            else if (event.type === 'done' && event.status === 'error')
              throw new UserscoutError(
                'unavailable',
                `the search failed on the service: ${event.error ?? 'error'}`,
              );
          }
        } catch (error) {
          if (signal.aborted) await client.cancel(started.queryId, { deadlineMs: 5_000 }).catch(() => false);
          throw commandErrorOf(error);
        }
      }
      // The service starts them just after the search completes: read it until they are listed.
      // A full queue keeps them pending for a while (the service starts them later): after a
      // minute, what is listed is given with `pending`, and the command says so.
      const followUps = async (): Promise<FollowUpList> => {
        let listed: FollowUp[] = [];
        for (let attempt = 0; attempt < followUpReads.times; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, followUpReads.every));
          const search = await client.get(started.queryId, { signal }).catch((error: unknown) => {
            throw commandErrorOf(error);
          });
          listed = (search.followUps ?? []).map((f) => ({ ...f }));
          if (!search.followUpsPending) return { followUps: listed, pending: false };
        }
        return { followUps: listed, pending: true };
      };
      return {
        id: started.queryId,
        total: started.totalPlatforms,
        outcomes: outcomes(),
        ...(recursive ? { followUps } : {}),
      };
    },
    finished() {},
    close: async () => {},
  };
}
