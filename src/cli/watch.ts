/**
 * `userscout watch add|list|changes|run`: watchlists of a running service,
 * through its REST API (--server and --key, or USERSCOUT_SERVER and
 * USERSCOUT_KEY). The requests are built and the answers formatted by pure
 * functions; `fetch` is passed in.
 */
import { ERROR_CODES, type ErrorCode, UserscoutError } from '../errors.js';
import type { Io } from './io.js';

export interface WatchTarget {
  readonly server: string;
  readonly key: string;
  readonly fetch?: typeof fetch;
}

export interface WatchAddOptions {
  readonly interval?: string;
  readonly webhook?: string;
  readonly secret?: string;
  readonly category?: string[];
  readonly platform?: string[];
  readonly everyRun?: boolean;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `30m`, `6h`, `1d` as seconds. Pure. */
export function intervalSeconds(text: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(text.trim());
  if (!match)
    throw new UserscoutError(
      'invalid_argument',
      `--interval must be like 3600, 90m, 6h or 1d; received ${text}`,
    );
  return Number(match[1]) * UNITS[(match[2] || 's').toLowerCase()]!;
}

/** The target from options, then the environment; refused when either is missing. */
export function watchTarget(
  options: { server?: string; key?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): WatchTarget {
  const server = (options.server ?? env.USERSCOUT_SERVER ?? '').replace(/\/+$/, '');
  const key = options.key ?? env.USERSCOUT_KEY ?? '';
  if (!server)
    throw new UserscoutError(
      'invalid_argument',
      '--server (or USERSCOUT_SERVER) is required, e.g. http://127.0.0.1:3000',
    );
  if (!key)
    throw new UserscoutError(
      'invalid_argument',
      '--key (or USERSCOUT_KEY) is required: watchlists need an API key',
    );
  return { server, key };
}

// biome-ignore lint/suspicious/noExplicitAny: the CLI prints what the API answered; the API's schemas define it.
type Json = any;

async function call(target: WatchTarget, method: string, path: string, body?: unknown): Promise<Json> {
  const doFetch = target.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(`${target.server}${path}`, {
      method,
      headers: {
        'x-api-key': target.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new UserscoutError(
      'network_unavailable',
      `${target.server} cannot be reached: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const text = await response.text();
  let parsed: Json;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed;
  const code = (
    parsed?.code in ERROR_CODES ? parsed.code : response.status >= 500 ? 'internal' : 'bad_request'
  ) as ErrorCode;
  throw new UserscoutError(code, `${parsed?.error ?? `HTTP ${response.status}`}`);
}

export async function watchAdd(
  target: WatchTarget,
  names: string[],
  options: WatchAddOptions,
  io: Io,
): Promise<void> {
  const created = await call(target, 'POST', '/api/watchlists', {
    names,
    ...(options.interval ? { intervalSeconds: intervalSeconds(options.interval) } : {}),
    ...(options.webhook ? { webhookUrl: options.webhook } : {}),
    ...(options.secret ? { webhookSecret: options.secret } : {}),
    ...(options.category?.length ? { categories: options.category } : {}),
    ...(options.platform?.length ? { platforms: options.platform } : {}),
    ...(options.everyRun ? { notify: 'every_run' } : {}),
  });
  io.out(created.id);
  io.err(
    `watchlist ${created.id} created: ${created.names.join(', ')}, every ${created.intervalSeconds} s; its first run starts now`,
  );
  io.err(`webhook secret (shown only now): ${created.webhookSecret}`);
}

export function watchlistTable(watchlists: readonly Json[]): string {
  if (watchlists.length === 0) return 'no watchlists';
  const rows = watchlists.map((w) =>
    [
      w.id,
      w.names.join(','),
      `${w.intervalSeconds}s`,
      w.running ? 'running' : w.nextRunAt,
      w.lastRun ? `${w.lastRun.changes} changes` : 'not run yet',
      w.webhookUrl ?? '-',
    ].join('\t'),
  );
  return ['id\tnames\tinterval\tnext run\tlast run\twebhook', ...rows].join('\n');
}

export function changesTable(changes: readonly Json[]): string {
  if (changes.length === 0) return 'no changes';
  return changes
    .map((c) => [c.seq, c.at, c.kind, c.username, c.platform, `${c.from}->${c.to}`, c.url].join('\t'))
    .join('\n');
}

export async function watchList(target: WatchTarget, format: 'table' | 'json', io: Io): Promise<void> {
  const { watchlists } = await call(target, 'GET', '/api/watchlists');
  io.out(format === 'json' ? JSON.stringify(watchlists, null, 2) : watchlistTable(watchlists));
}

export async function watchChanges(
  target: WatchTarget,
  id: string,
  options: { after?: string; format: 'table' | 'json' },
  io: Io,
): Promise<void> {
  const query = options.after ? `?after=${encodeURIComponent(options.after)}` : '';
  const { changes } = await call(target, 'GET', `/api/watchlists/${encodeURIComponent(id)}/changes${query}`);
  io.out(options.format === 'json' ? JSON.stringify(changes, null, 2) : changesTable(changes));
}

export async function watchRun(target: WatchTarget, id: string, io: Io): Promise<void> {
  const { status } = await call(target, 'POST', `/api/watchlists/${encodeURIComponent(id)}/run`);
  io.err(status === 'running' ? `watchlist ${id} is running already` : `watchlist ${id} runs now`);
}
