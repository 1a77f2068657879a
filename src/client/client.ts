/**
 * A client for a userscout service: starts searches, follows them live
 * (Server-Sent Events, resumed with Last-Event-ID, or polling at the documented
 * pace when events cannot be had), reads results, platforms and usage. It
 * waits as Retry-After says on 429 and 503 (else backs off exponentially with
 * jitter), within the caller's deadline; retries network failures for reads
 * only, and sends a search start again only when the first certainly did not
 * arrive. The API key goes in a header, never in a URL.
 */
import type { Static } from '@sinclair/typebox';
import type {
  PlatformsResponse,
  Result,
  SearchResponse,
  StartSearchBody,
  StartSearchResponse,
} from '../api/schemas.js';
import type { ChangesResponse, CreateWatchlistBody, WatchlistResponse } from '../api/watchlist-schemas.js';
import { usernameProblem } from '../catalogue/username-rule.js';
import { parseRetryAfter, retryDelay } from '../engine/retry-timing.js';
import { UserscoutClientError } from './client-error.js';
import { fetchFollowingRedirects } from './follow-redirects.js';
import { SseParser } from './sse.js';

export type SearchResult = Static<typeof Result>;
export type Search = Static<typeof SearchResponse>;
export type SearchStarted = Static<typeof StartSearchResponse>;
export type PlatformList = Static<typeof PlatformsResponse>;
export type SearchOptions = Omit<Static<typeof StartSearchBody>, 'username'>;
export type Watchlist = Static<typeof WatchlistResponse>;
export type NewWatchlist = Static<typeof CreateWatchlistBody>;
export type WatchChange = Static<typeof ChangesResponse>['changes'][number];

export interface ClientOptions {
  /** Where the service is, e.g. `https://userscout.example.com`. */
  readonly baseUrl: string;
  /** A professional API key (sent as X-API-Key). @default none: the free tier */
  readonly apiKey?: string;
  /** How long one call may take in all, retries and waits included (ms). @default 300000 */
  readonly deadlineMs?: number;
  /** How long one HTTP request may take before it counts as failed (ms). @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Pace of polling when live events cannot be had (ms); the API asks for about once a second. @default 1000 */
  readonly pollIntervalMs?: number;
  /** First backoff step and the most any wait may be (ms). @default { baseDelayMs: 500, maxDelayMs: 30000 } */
  readonly backoff?: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  /** Attempts per request at most, the first included. @default 8 */
  readonly maxAttempts?: number;
  /** The fetch to use. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overrides the client's deadlineMs for this call. */
  readonly deadlineMs?: number;
}

export type FollowEvent =
  | {
      readonly type: 'result';
      readonly result: SearchResult;
      readonly seq?: number;
      /**
       * A later answer of a platform already reported: it replaces the earlier
       * one (a platform that had not answered, checked again because a hit's
       * profile links to it).
       */
      readonly replaces?: true;
    }
  | { readonly type: 'progress'; readonly progress: { checked: number; total: number; hits: number } }
  | { readonly type: 'done'; readonly status: 'completed' | 'error'; readonly error?: string };

export interface FollowOptions extends CallOptions {
  /** Resume after this event id (an outcome's sequence number). */
  readonly lastEventId?: number;
  /** Skip live events and poll. @default false */
  readonly poll?: boolean;
}

export interface SearchCallOptions extends SearchOptions, CallOptions {
  /** Every outcome in the final answer, not only hits. @default false */
  readonly all?: boolean;
  /** Called as each outcome arrives. */
  readonly onEvent?: (event: FollowEvent) => void;
}

/** Connection failures that prove the request never reached the server. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Reconnects of one live-event stream at most, before polling takes over. */
const MAX_STREAM_RECONNECTS = 20;
const MAX_POLLS = 100_000;

interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** Safe to send again after a failure whose arrival is unknown. */
  readonly idempotent: boolean;
}

function errorCause(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

export class UserscoutClient {
  readonly #base: URL;
  readonly #key: string | undefined;
  readonly #deadlineMs: number;
  readonly #requestTimeoutMs: number;
  readonly #pollMs: number;
  readonly #backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly #maxAttempts: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new TypeError(`baseUrl must be an http(s) URL, got ${base.protocol}`);
    if (base.username || base.password || base.search)
      throw new TypeError('baseUrl must not hold credentials or a query; pass the key as apiKey');
    this.#base = base;
    this.#key = options.apiKey || undefined;
    this.#deadlineMs = options.deadlineMs ?? 300_000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#pollMs = options.pollIntervalMs ?? 1000;
    this.#backoff = options.backoff ?? { baseDelayMs: 500, maxDelayMs: 30_000 };
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** Starts a search and answers at once (the service's POST /api/search). */
  start(username: string, options: SearchOptions & CallOptions = {}): Promise<SearchStarted> {
    const problem = usernameProblem(username);
    if (problem) return Promise.reject(new UserscoutClientError('invalid_username', `username ${problem}`));
    const body: Record<string, unknown> = { username };
    if (options.categories) body.categories = options.categories;
    if (options.platforms) body.platforms = options.platforms;
    if (options.tags) body.tags = options.tags;
    if (options.top !== undefined) body.top = options.top;
    if (options.includeNsfw !== undefined) body.includeNsfw = options.includeNsfw;
    if (options.private !== undefined) body.private = options.private;
    if (options.recursive !== undefined) body.recursive = options.recursive;
    return this.#json<SearchStarted>(
      { method: 'POST', path: '/api/search', body, idempotent: false },
      this.#call(options),
    );
  }

  /** A search as it stands (GET /api/search?id=): hits only, or every outcome with `all`. */
  get(id: string, options: CallOptions & { all?: boolean } = {}): Promise<Search> {
    const query = new URLSearchParams({ id, ...(options.all ? { include: 'all' } : {}) });
    return this.#json<Search>(
      { method: 'GET', path: `/api/search?${query}`, idempotent: true },
      this.#call(options),
    );
  }

  /** The platforms the service checks, optionally of one category. */
  platforms(category?: string, options: CallOptions = {}): Promise<PlatformList> {
    const query = category ? `?${new URLSearchParams({ category })}` : '';
    return this.#json<PlatformList>(
      { method: 'GET', path: `/api/platforms${query}`, idempotent: true },
      this.#call(options),
    );
  }

  /** The caller's tier, limits and use, where the service has GET /api/usage. */
  usage(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#json({ method: 'GET', path: '/api/usage', idempotent: true }, this.#call(options));
  }

  /** Cancels a queued or running search, where the service supports it; false when it does not. */
  async cancel(id: string, options: CallOptions = {}): Promise<boolean> {
    try {
      await this.#json(
        { method: 'DELETE', path: `/api/search/${encodeURIComponent(id)}`, idempotent: true },
        this.#call(options),
      );
      return true;
    } catch (error) {
      if (error instanceof UserscoutClientError && (error.status === 404 || error.status === 405))
        return false;
      throw error;
    }
  }

  // --- watchlists (API keys only) ---
  /** Creates a watchlist; the answer holds its webhook secret, shown only this once. Never sent twice. */
  createWatchlist(watchlist: NewWatchlist, options: CallOptions = {}): Promise<Watchlist> {
    return this.#json(
      { method: 'POST', path: '/api/watchlists', body: watchlist, idempotent: false },
      this.#call(options),
    );
  }

  /** The key's watchlists. */
  async watchlists(options: CallOptions = {}): Promise<Watchlist[]> {
    const answer = await this.#json<{ watchlists: Watchlist[] }>(
      { method: 'GET', path: '/api/watchlists', idempotent: true },
      this.#call(options),
    );
    return answer.watchlists;
  }

  /** Runs a watchlist now: 'running' when a run is under way already. Safe to send again. */
  async runWatchlist(id: string, options: CallOptions = {}): Promise<'queued' | 'running'> {
    const answer = await this.#json<{ status: 'queued' | 'running' }>(
      { method: 'POST', path: `/api/watchlists/${encodeURIComponent(id)}/run`, idempotent: true },
      this.#call(options),
    );
    return answer.status;
  }

  /** A watchlist's changes, oldest first, after the seq `after` when given. */
  async watchlistChanges(id: string, options: CallOptions & { after?: number } = {}): Promise<WatchChange[]> {
    const query = options.after !== undefined ? `?after=${options.after}` : '';
    const answer = await this.#json<{ changes: WatchChange[] }>(
      { method: 'GET', path: `/api/watchlists/${encodeURIComponent(id)}/changes${query}`, idempotent: true },
      this.#call(options),
    );
    return answer.changes;
  }
  // --- end of watchlists ---

  /**
   * Starts a search, follows it to its end and answers the final search (as
   * GET /api/search?id= gives it). Aborting the signal stops waiting and asks
   * the service to cancel the search.
   */
  async search(username: string, options: SearchCallOptions = {}): Promise<Search> {
    const call = this.#call(options);
    const started = await this.start(username, { ...options, ...call.options });
    try {
      for await (const event of this.follow(started.queryId, call.options)) options.onEvent?.(event);
      return await this.get(started.queryId, { ...call.options, all: options.all ?? false });
    } catch (error) {
      if (error instanceof UserscoutClientError && error.code === 'aborted')
        await this.cancel(started.queryId, { deadlineMs: 5_000 }).catch(() => false);
      throw error;
    }
  }

  /**
   * The outcomes of a search as they arrive, each once, then `done`; a later
   * answer of a platform already reported comes with `replaces: true`.
   * Live events first, resumed with Last-Event-ID when the stream drops; when
   * no stream can be had, polling about once a second.
   */
  async *follow(id: string, options: FollowOptions = {}): AsyncGenerator<FollowEvent> {
    const call = this.#call(options);
    /** Each platform's last reported answer, as the fields a later check changes (not linkedFrom, read over time). */
    const reported = new Map<string, string>();
    /** Whether `result` is new: undefined (already reported), or whether it replaces an earlier answer. */
    const fresh = (result: SearchResult): { replaces: boolean } | undefined => {
      const { status, reason, responseTime, evidence } = result;
      const text = JSON.stringify([
        status,
        reason,
        responseTime,
        evidence.rule,
        evidence.attempts,
        evidence.cachedAt,
      ]);
      const earlier = reported.get(result.platformId);
      if (earlier === text) return undefined;
      reported.set(result.platformId, text);
      return { replaces: earlier !== undefined };
    };
    let lastEventId = options.lastEventId ?? 0;
    let live = !options.poll;
    for (let reconnects = 0; live && reconnects <= MAX_STREAM_RECONNECTS; reconnects++) {
      let response: Response;
      try {
        response = await this.#send(
          { method: 'GET', path: `/api/search/${encodeURIComponent(id)}/events`, idempotent: true },
          call,
          {
            accept: 'text/event-stream',
            ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
          },
          false,
        );
      } catch (error) {
        if (
          error instanceof UserscoutClientError &&
          (error.code === 'network_error' || error.status === 501)
        ) {
          live = false;
          break;
        }
        throw error;
      }
      if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
        await response.body?.cancel().catch(() => undefined);
        live = false;
        break;
      }
      const parser = new SseParser();
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          for (const raw of parser.push(decoder.decode(chunk, { stream: true }))) {
            const event = this.#event(raw.event, raw.data, raw.id);
            if (!event) continue;
            if (event.type === 'result') {
              if (event.seq !== undefined) {
                // The service sends results in seq order: one at or below the last seen was seen.
                if (event.seq <= lastEventId) continue;
                lastEventId = event.seq;
              }
              const news = fresh(event.result);
              if (!news) continue;
              yield news.replaces ? { ...event, replaces: true } : event;
              continue;
            }
            yield event;
            if (event.type === 'done') return;
          }
        }
      } catch {
        if (call.signal.aborted) throw this.#stopped(call);
        // The stream broke: reconnect below, from the last event seen.
      }
      await this.#pause(reconnects, undefined, call);
    }
    // Polling: every outcome, each reported once (and again when replaced), until the search ends.
    for (let polls = 0; polls < MAX_POLLS; polls++) {
      const search = await this.get(id, { ...call.options, all: true });
      for (const result of search.results) {
        const news = fresh(result);
        if (news) yield { type: 'result', result, ...(news.replaces ? { replaces: true as const } : {}) };
      }
      const { checked, total, hits } = search.progress;
      yield { type: 'progress', progress: { checked, total, hits } };
      if (search.status !== 'running') {
        yield { type: 'done', status: search.status, ...(search.error ? { error: search.error } : {}) };
        return;
      }
      await this.#sleep(this.#pollMs, call);
    }
    throw new UserscoutClientError('deadline_exceeded', `search ${id} did not end within ${MAX_POLLS} polls`);
  }

  #event(name: string, data: string, id: string | undefined): FollowEvent | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return undefined;
    }
    if (name === 'result') {
      const seq = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
      return { type: 'result', result: parsed as SearchResult, ...(seq !== undefined ? { seq } : {}) };
    }
    if (name === 'progress')
      return { type: 'progress', progress: parsed as { checked: number; total: number; hits: number } };
    if (name === 'done') {
      const done = parsed as { status: 'completed' | 'error'; error?: string };
      return { type: 'done', status: done.status, ...(done.error ? { error: done.error } : {}) };
    }
    // Other events (e.g. a notice to reconnect): the stream's end is what counts.
    return undefined;
  }

  #call(options: CallOptions): { signal: AbortSignal; deadline: number; options: CallOptions } {
    const deadline = Date.now() + (options.deadlineMs ?? this.#deadlineMs);
    const signal = options.signal ?? new AbortController().signal;
    return { signal, deadline, options: { signal, deadlineMs: Math.max(0, deadline - Date.now()) } };
  }

  #stopped(call: { signal: AbortSignal }): UserscoutClientError {
    return new UserscoutClientError('aborted', 'the call was aborted', { cause: call.signal.reason });
  }

  async #json<T>(spec: RequestSpec, call: { signal: AbortSignal; deadline: number }): Promise<T> {
    const response = await this.#send(spec, call, { accept: 'application/json' }, true);
    const text = await response.text();
    try {
      return (text === '' ? {} : JSON.parse(text)) as T;
    } catch (error) {
      throw new UserscoutClientError('bad_response', `${spec.method} ${spec.path}: the answer is not JSON`, {
        status: response.status,
        cause: error,
      });
    }
  }

  /** Sends one request, waiting and retrying as the answer allows; resolves with a 2xx response. */
  async #send(
    spec: RequestSpec,
    call: { signal: AbortSignal; deadline: number },
    headers: Record<string, string>,
    timed: boolean,
  ): Promise<Response> {
    const url = new URL(spec.path, this.#base);
    for (let attempt = 0; ; attempt++) {
      if (call.signal.aborted) throw this.#stopped(call);
      const timeout = timed ? AbortSignal.timeout(this.#requestTimeoutMs) : undefined;
      let response: Response;
      try {
        response = await fetchFollowingRedirects(this.#fetch, url, {
          method: spec.method,
          headers: {
            ...headers,
            ...(this.#key ? { 'x-api-key': this.#key } : {}),
            ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
          signal: timeout ? AbortSignal.any([call.signal, timeout]) : call.signal,
        });
      } catch (error) {
        if (call.signal.aborted) throw this.#stopped(call);
        const code = errorCause(error);
        const again = spec.idempotent || (code !== undefined && NOT_SENT.has(code));
        const failure = new UserscoutClientError(
          'network_error',
          `${spec.method} ${url.pathname}: ${code ?? (error as Error).message}`,
          { cause: error },
        );
        if (!again || attempt + 1 >= this.#maxAttempts) throw failure;
        await this.#pause(attempt, undefined, call, failure);
        continue;
      }
      if (response.ok) return response;
      const failure = await this.#failure(spec, response);
      // 429 and 503 say the request was refused, so even a search start may go again.
      const refused = response.status === 429 || response.status === 503;
      const again = refused || (spec.idempotent && response.status >= 500);
      if (!again || attempt + 1 >= this.#maxAttempts) throw failure;
      await this.#pause(attempt, response.headers.get('retry-after') ?? undefined, call, failure);
    }
  }

  async #failure(spec: RequestSpec, response: Response): Promise<UserscoutClientError> {
    const body = (await response.json().catch(() => undefined)) as
      | { error?: unknown; code?: unknown; requestId?: unknown; retryAfter?: unknown }
      | undefined;
    // Retry-After as seconds or an HTTP date (the engine's parser), else the body's figure.
    const header = parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now());
    const retryAfter = header !== undefined ? Math.ceil(header / 1000) : Number(body?.retryAfter);
    return new UserscoutClientError(
      typeof body?.code === 'string' ? body.code : `http_${response.status}`,
      typeof body?.error === 'string'
        ? body.error
        : `${spec.method} ${spec.path} answered ${response.status}`,
      {
        status: response.status,
        ...(typeof body?.requestId === 'string' ? { requestId: body.requestId } : {}),
        ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
      },
    );
  }

  /** Waits before attempt `attempt + 1`; past the deadline, fails with `failure` (or deadline_exceeded) instead. */
  async #pause(
    attempt: number,
    retryAfter: string | undefined,
    call: { signal: AbortSignal; deadline: number },
    failure?: UserscoutClientError,
  ): Promise<void> {
    const waitMs = retryDelay(attempt, retryAfter, this.#backoff, Date.now(), Math.random());
    if (Date.now() + waitMs > call.deadline) {
      if (failure) throw failure;
      throw new UserscoutClientError('deadline_exceeded', 'the call would pass its deadline');
    }
    await this.#sleep(waitMs, call);
  }

  async #sleep(ms: number, call: { signal: AbortSignal; deadline: number }): Promise<void> {
    if (Date.now() + ms > call.deadline)
      throw new UserscoutClientError('deadline_exceeded', 'the call would pass its deadline');
    await new Promise<void>((resolve, reject) => {
      if (call.signal.aborted) return reject(this.#stopped(call));
      const timer = setTimeout(() => {
        call.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.#stopped(call));
      };
      call.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
