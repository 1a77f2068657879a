/**
 * The page's only way to the service: the public REST API. Adds the API key
 * header when one is saved, turns failures into ApiError, and reports the
 * rate-limit headers of every answer.
 */
import { ApiError, classifyFailure, parseRateLimit, type RateLimitState } from './api-failure.js';
import type { BatchStarted, CategoryList, PlatformList, SearchSnapshot, SearchStarted } from './api-types.js';

export type Tier = 'free' | 'professional';

export interface ApiClientOptions {
  /** The saved API key, read at every call. */
  readonly apiKey: () => string | undefined;
  /** Called with the RateLimit-* headers of each answer and the path asked. */
  readonly onRateLimit?: (state: RateLimitState, path: string) => void;
  /** Called with the tier the service says served each answer (X-Userscout-Tier). */
  readonly onTier?: (tier: Tier) => void;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default Date.now */
  readonly now?: () => number;
}

/** What narrows a search: the API's `categories`, `platforms`, `tags`, `top` and `includeNsfw`; empty lists are left out. */
export interface SearchOptions {
  readonly categories?: readonly string[];
  readonly platforms?: readonly string[];
  /** Only platforms with one of these tags; also brings in those searched on request. */
  readonly tags?: readonly string[];
  /** Only the curated set of the platforms most searched on. */
  readonly top?: boolean;
  readonly includeNsfw?: boolean;
  /** Follow up the new names the hits' profiles give (src/api/follow-ups.ts). */
  readonly recursive?: boolean;
}

export interface ApiClient {
  startSearch(username: string, options?: SearchOptions): Promise<SearchStarted>;
  /** One search per name (POST /api/searches): all start, or none. */
  startBatch(usernames: readonly string[], options?: SearchOptions): Promise<BatchStarted>;
  getSearch(id: string): Promise<SearchSnapshot>;
  /** The search with its hits only. */
  getHits(id: string): Promise<SearchSnapshot>;
  listPlatforms(): Promise<PlatformList>;
  listCategories(): Promise<CategoryList>;
  eventsUrl(id: string): string;
}

/** The request fields of the options; empty lists are left out. */
function narrowing(narrow: SearchOptions): Record<string, unknown> {
  return {
    ...(narrow.categories?.length ? { categories: narrow.categories } : {}),
    ...(narrow.platforms?.length ? { platforms: narrow.platforms } : {}),
    ...(narrow.tags?.length ? { tags: narrow.tags } : {}),
    ...(narrow.top ? { top: true } : {}),
    ...(narrow.includeNsfw ? { includeNsfw: true } : {}),
    ...(narrow.recursive ? { recursive: true } : {}),
  };
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const now = options.now ?? Date.now;

  async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set('accept', 'application/json');
    const key = options.apiKey();
    if (key) headers.set('x-api-key', key);
    let response: Response;
    try {
      response = await doFetch(path, { ...init, headers, cache: 'no-store' });
    } catch (error) {
      throw new ApiError({ kind: 'network', message: 'The service could not be reached' }, { cause: error });
    }
    const limits = parseRateLimit(response.headers);
    if (limits) options.onRateLimit?.(limits, path);
    const tier = response.headers.get('x-userscout-tier');
    if (tier === 'free' || tier === 'professional') options.onTier?.(tier);
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      if (response.ok) {
        throw new ApiError({ kind: 'network', message: 'The answer was cut off' }, { cause: error });
      }
    }
    if (!response.ok) throw new ApiError(classifyFailure(response.status, body, response.headers, now()));
    return body as T;
  }

  return {
    startSearch: (username, narrow = {}) =>
      call('/api/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, ...narrowing(narrow) }),
      }),
    startBatch: (usernames, narrow = {}) =>
      call('/api/searches', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ usernames, ...narrowing(narrow) }),
      }),
    getSearch: (id) => call(`/api/search?id=${encodeURIComponent(id)}&include=all`),
    getHits: (id) => call(`/api/search?id=${encodeURIComponent(id)}`),
    listPlatforms: () => call('/api/platforms'),
    listCategories: () => call('/api/categories'),
    eventsUrl: (id) => `/api/search/${encodeURIComponent(id)}/events`,
  };
}
