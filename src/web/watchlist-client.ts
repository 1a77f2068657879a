/**
 * The watchlists page's calls to the public REST API (/api/watchlists...),
 * with the saved API key; failures become ApiError as in api-client.ts.
 */
import { ApiError, classifyFailure } from './api-failure.js';

export interface WatchRunView {
  readonly id: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly searches: Readonly<Record<string, string>>;
  readonly skipped: Readonly<Record<string, string>>;
  readonly changes?: number;
}

export interface WatchlistView {
  readonly id: string;
  readonly names: readonly string[];
  readonly intervalSeconds: number;
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
  readonly notify: 'changes' | 'every_run';
  readonly nextRunAt: string;
  readonly runs: number;
  readonly running?: WatchRunView;
  readonly lastRun?: WatchRunView;
}

export interface ChangeView {
  readonly seq: number;
  readonly at: string;
  readonly username: string;
  readonly platform: string;
  readonly url: string;
  readonly kind: 'new_hit' | 'gone' | 'changed';
  readonly from: string;
  readonly to: string;
}

export interface DeliveryView {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly createdAt: string;
  readonly nextAttemptAt?: string;
  readonly attempts: readonly { at: string; status?: number; error?: string }[];
}

export interface NewWatchlist {
  readonly names: readonly string[];
  readonly intervalSeconds?: number;
  readonly webhookUrl?: string;
  readonly notify?: 'changes' | 'every_run';
}

export interface WatchlistClient {
  list(): Promise<WatchlistView[]>;
  create(watchlist: NewWatchlist): Promise<WatchlistView>;
  remove(id: string): Promise<void>;
  run(id: string): Promise<'queued' | 'running'>;
  changes(id: string): Promise<ChangeView[]>;
  deliveries(id: string): Promise<DeliveryView[]>;
  redeliver(id: string, deliveryId: string): Promise<void>;
}

export function createWatchlistClient(options: {
  readonly apiKey: () => string | undefined;
  readonly fetch?: typeof fetch;
}): WatchlistClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function call<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
    const headers = new Headers({ accept: 'application/json' });
    const key = options.apiKey();
    if (key) headers.set('x-api-key', key);
    if (body !== undefined) headers.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await doFetch(path, {
        method,
        headers,
        cache: 'no-store',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new ApiError({ kind: 'network', message: 'The service could not be reached' }, { cause: error });
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok)
      throw new ApiError(classifyFailure(response.status, parsed, response.headers, Date.now()));
    return parsed as T;
  }

  const path = (id: string, rest = '') => `/api/watchlists/${encodeURIComponent(id)}${rest}`;
  return {
    list: async () => (await call<{ watchlists: WatchlistView[] }>('/api/watchlists')).watchlists,
    create: (w) => call('/api/watchlists', 'POST', w),
    remove: async (id) => {
      await call(path(id), 'DELETE');
    },
    run: async (id) => (await call<{ status: 'queued' | 'running' }>(path(id, '/run'), 'POST')).status,
    changes: async (id) => (await call<{ changes: ChangeView[] }>(path(id, '/changes?limit=1000'))).changes,
    deliveries: async (id) =>
      (await call<{ deliveries: DeliveryView[] }>(path(id, '/deliveries'))).deliveries,
    redeliver: async (id, deliveryId) => {
      await call(path(id, `/deliveries/${encodeURIComponent(deliveryId)}/redeliver`), 'POST');
    },
  };
}

/** The names typed in the form: one per line or separated by commas, trimmed, without repeats. Pure. */
export function namesFromText(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\n,]+/)
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
}

/** A watchlist's last run, for a table cell. Pure. */
export function lastRunText(w: WatchlistView): string {
  if (w.running) return 'running now';
  if (!w.lastRun) return 'not run yet';
  const skipped = Object.keys(w.lastRun.skipped).length;
  const changes = w.lastRun.changes ?? 0;
  return `run ${w.runs}: ${changes} ${changes === 1 ? 'change' : 'changes'}${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}
