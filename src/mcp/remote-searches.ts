/**
 * The MCP server's searches on a userscout service, through the typed client:
 * the service runs and keeps them (its addresses, history and cache), and a
 * search is read by its queryId as GET /api/search?id= gives it.
 */
import type { SearchJson } from '../api/search-response.js';
import type { Category } from '../catalogue/categories.js';
import type { UserscoutClient } from '../client/client.js';
import { UserscoutClientError } from '../client/client-error.js';
import { ERROR_CODES, type ErrorCode, UserscoutError } from '../errors.js';
import {
  type PlatformEntry,
  platformEntry,
  type ReadOptions,
  type SearchBackend,
  type SearchFilters,
  type StartedSearch,
} from './search-backend.js';

/** How often a running search is read again while a tool waits for it (the API asks for about once a second). */
const POLL_MS = 1_000;

/** A client failure as the tools report it: the service's own code and words, never a miss. */
function serviceError(error: unknown): unknown {
  if (!(error instanceof UserscoutClientError)) return error;
  const where = error.requestId ? ` (request ${error.requestId})` : '';
  const status = error.status ? `${error.status} ` : '';
  // The service's own code where it is one of ours; anything else (no answer, a bad one) is unavailability.
  const code: ErrorCode = error.code in ERROR_CODES ? (error.code as ErrorCode) : 'unavailable';
  return new UserscoutError(code, `the service answered ${status}${error.code}: ${error.message}${where}`, {
    cause: error,
  });
}

export class RemoteSearches implements SearchBackend {
  readonly where: string;
  readonly #client: UserscoutClient;
  readonly #closing = new AbortController();

  constructor(client: UserscoutClient, baseUrl: string) {
    this.#client = client;
    this.where = baseUrl;
  }

  async start(username: string, filters: SearchFilters): Promise<StartedSearch> {
    const started = await this.#client
      .start(username, {
        ...(filters.categories?.length ? { categories: [...filters.categories] } : {}),
        ...(filters.platforms?.length ? { platforms: [...filters.platforms] } : {}),
        ...(filters.tags?.length ? { tags: [...filters.tags] } : {}),
        ...(filters.top ? { top: true } : {}),
        ...(filters.includeNsfw !== undefined ? { includeNsfw: filters.includeNsfw } : {}),
        signal: this.#closing.signal,
      })
      .catch((error: unknown) => {
        throw serviceError(error);
      });
    return { queryId: started.queryId, totalPlatforms: started.totalPlatforms };
  }

  async read(queryId: string, options: ReadOptions): Promise<SearchJson | undefined> {
    const deadline = Date.now() + options.waitMs;
    const reads = 2 + Math.ceil(options.waitMs / POLL_MS);
    // One read, then one a second until the search ends or the wait does.
    for (let read = 1; ; read++) {
      let search: SearchJson;
      try {
        search = (await this.#client.get(queryId, {
          all: options.all,
          signal: this.#closing.signal,
        })) as SearchJson;
      } catch (error) {
        if (error instanceof UserscoutClientError && error.status === 404) return undefined;
        throw serviceError(error);
      }
      const left = deadline - Date.now();
      if (search.status !== 'running' || left <= 0 || read >= reads) return search;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    }
  }

  async platforms(category?: Category): Promise<PlatformEntry[]> {
    const list = await this.#client.platforms(category, { signal: this.#closing.signal }).catch((error) => {
      throw serviceError(error);
    });
    return list.platforms.map(platformEntry);
  }

  async close(): Promise<void> {
    this.#closing.abort();
  }
}
