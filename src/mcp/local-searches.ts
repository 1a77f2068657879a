/**
 * The MCP server's searches on this machine's engine, as `userscout search`
 * runs them: each search runs in the background and is kept in memory, so a
 * tool can start one and another read it by id while it runs and after. They
 * live as long as the server; the oldest finished ones make room for new ones.
 */
import { randomUUID } from 'node:crypto';
import { type SearchJson, searchResponse } from '../api/search-response.js';
import type { Category } from '../catalogue/categories.js';
import { checkUsername } from '../catalogue/check-username.js';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import type { Engine } from '../engine/engine.js';
import { accountLinks, ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { countStatuses, unansweredReasons } from '../report/coverage.js';
import {
  type PlatformEntry,
  platformEntry,
  type ReadOptions,
  type SearchBackend,
  type SearchFilters,
  type StartedSearch,
} from './search-backend.js';

/** Searches kept for reading; past it, the oldest finished one is forgotten. */
const KEPT_SEARCHES = 100;

export interface LocalSearchesOptions {
  readonly engine: Pick<Engine, 'search' | 'close'>;
  readonly catalogue: Catalogue;
  /** Searches running at once (setting maxRunningSearches); past it, a start is refused. */
  readonly maxRunning: number;
  /** Setting coverageWarningPercent: below it, a completed search carries the API's warning. */
  readonly coverageWarningPercent: number;
  /** The order checks go in (slowest first, as the command line remembers); default catalogue order. */
  readonly order?: (platforms: readonly Platform[]) => readonly Platform[];
  readonly includeNsfw?: boolean;
  readonly now?: () => number;
}

interface LocalSearch {
  readonly id: string;
  readonly username: string;
  readonly platformIds: readonly string[];
  /** By platform id: a later answer for a platform replaces the earlier. */
  readonly outcomes: Map<string, Outcome>;
  readonly createdAt: number;
  state: 'running' | 'completed' | 'error';
  finishedAt?: number;
  error?: string;
  readonly controller: AbortController;
  /** Settles when the search ends, however it ends. */
  ended: Promise<void>;
}

export class LocalSearches implements SearchBackend {
  readonly where = 'this machine';
  readonly #options: LocalSearchesOptions;
  readonly #searches = new Map<string, LocalSearch>();
  readonly #profileUrls: ProfileUrlMatcher;
  readonly #now: () => number;

  constructor(options: LocalSearchesOptions) {
    this.#options = options;
    this.#profileUrls = new ProfileUrlMatcher(options.catalogue.platforms);
    this.#now = options.now ?? Date.now;
  }

  async start(username: string, filters: SearchFilters): Promise<StartedSearch> {
    checkUsername(username);
    const running = [...this.#searches.values()].filter((s) => s.state === 'running').length;
    if (running >= this.#options.maxRunning)
      throw new UserscoutError(
        'queue_full',
        `${running} searches are running on this machine (USERSCOUT_MAX_RUNNING_SEARCHES); read one until it completes, then start this one`,
      );
    const platforms = selectPlatforms(this.#options.catalogue, {
      categories: filters.categories,
      platforms: filters.platforms,
      tags: filters.tags,
      top: filters.top,
      includeNsfw: filters.includeNsfw ?? this.#options.includeNsfw,
    });
    if (platforms.length === 0)
      throw new UserscoutError('invalid_argument', 'no platform matches the filters');
    const ordered = this.#options.order?.(platforms) ?? platforms;
    const controller = new AbortController();
    const outcomes = new Map<string, Outcome>();
    const search: LocalSearch = {
      id: randomUUID(),
      username,
      platformIds: platforms.map((p) => p.id),
      outcomes,
      createdAt: this.#now(),
      state: 'running',
      controller,
      ended: Promise.resolve(),
    };
    search.ended = this.#run(search, ordered);
    this.#searches.set(search.id, search);
    this.#forgetOldest();
    return { queryId: search.id, totalPlatforms: platforms.length };
  }

  async read(queryId: string, options: ReadOptions): Promise<SearchJson | undefined> {
    const search = this.#searches.get(queryId);
    if (!search) return undefined;
    if (search.state === 'running' && options.waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          search.ended,
          new Promise((resolve) => {
            timer = setTimeout(resolve, options.waitMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    }
    return this.#view(search, options.all);
  }

  async platforms(category?: Category): Promise<PlatformEntry[]> {
    return this.#options.catalogue.platforms
      .filter((p) => category === undefined || p.category === category)
      .map(platformEntry);
  }

  async close(): Promise<void> {
    for (const search of this.#searches.values()) search.controller.abort();
    await Promise.all([...this.#searches.values()].map((s) => s.ended));
    await this.#options.engine.close();
  }

  /** Runs the search to its end, keeping each outcome as it comes; never rejects. */
  async #run(search: LocalSearch, platforms: readonly Platform[]): Promise<void> {
    const { signal } = search.controller;
    try {
      for await (const outcome of this.#options.engine.search(search.username, platforms, signal))
        search.outcomes.set(outcome.platformId, outcome);
      search.state = signal.aborted ? 'error' : 'completed';
      if (signal.aborted) search.error = 'cancelled';
    } catch (error) {
      search.state = 'error';
      search.error = signal.aborted ? 'cancelled' : error instanceof Error ? error.message : String(error);
    } finally {
      search.finishedAt = this.#now();
    }
  }

  /** The API's answer for the search as it stands (the builder GET /api/search?id= uses). */
  #view(search: LocalSearch, all: boolean): SearchJson {
    const outcomes = [...search.outcomes.values()];
    const finishedAt = search.finishedAt;
    return searchResponse(
      {
        search: {
          id: search.id,
          username: search.username,
          state: search.state,
          // Run at once, unqueued: a finished search took what it took; a running one is given its time so far.
          estimatedSeconds: Math.max(1, Math.ceil(((finishedAt ?? this.#now()) - search.createdAt) / 1000)),
          createdAt: search.createdAt,
          ...(finishedAt !== undefined ? { finishedAt } : {}),
          ...(search.error !== undefined ? { error: search.error } : {}),
        },
        total: search.platformIds.length,
        progress: { checked: outcomes.length, byStatus: countStatuses(outcomes) },
        results: all ? outcomes : outcomes.filter((o) => o.status === 'hit'),
        unansweredReasons: unansweredReasons(outcomes),
        links: accountLinks(outcomes, this.#profileUrls),
      },
      this.#options.coverageWarningPercent,
    );
  }

  #forgetOldest(): void {
    for (const [id, search] of this.#searches) {
      if (this.#searches.size <= KEPT_SEARCHES) return;
      if (search.state !== 'running') this.#searches.delete(id);
    }
  }
}
