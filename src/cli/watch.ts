/**
 * `userscout watch add|list|changes|run`: watchlists of a running service,
 * through the client (src/client) and the service's REST API. The service
 * and key come from --server and --key, or USERSCOUT_SERVER and USERSCOUT_KEY
 * (the `server` and `apiKey` settings). Answers are formatted by pure functions.
 */
import type { NewWatchlist, WatchChange, Watchlist } from '../client/client.js';
import { UserscoutClient } from '../client/client.js';
import type { Config } from '../config.js';
import { UserscoutError } from '../errors.js';
import type { Io } from './io.js';
import { commandErrorOf } from './search-checkers.js';
import { terminalLine } from './terminal-text.js';

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

/** Where to call and with which key: the options, then the settings; refused when either is missing. Pure. */
export function watchConnection(
  options: { server?: string; key?: string },
  config: Pick<Config, 'server' | 'apiKey'>,
): { baseUrl: string; apiKey: string } {
  const baseUrl = (options.server || config.server).replace(/\/+$/, '');
  const apiKey = options.key || config.apiKey;
  if (!baseUrl)
    throw new UserscoutError(
      'invalid_argument',
      '--server (or USERSCOUT_SERVER) is required, e.g. http://127.0.0.1:3000',
    );
  if (!apiKey)
    throw new UserscoutError(
      'invalid_argument',
      '--key (or USERSCOUT_KEY) is required: watchlists need an API key',
    );
  return { baseUrl, apiKey };
}

/** The body of POST /api/watchlists from the command's options. Pure. */
export function newWatchlist(names: string[], options: WatchAddOptions): NewWatchlist {
  return {
    names,
    ...(options.interval ? { intervalSeconds: intervalSeconds(options.interval) } : {}),
    ...(options.webhook ? { webhookUrl: options.webhook } : {}),
    ...(options.secret ? { webhookSecret: options.secret } : {}),
    ...(options.category?.length ? { categories: options.category as NewWatchlist['categories'] } : {}),
    ...(options.platform?.length ? { platforms: options.platform } : {}),
    ...(options.everyRun ? { notify: 'every_run' as const } : {}),
  };
}

function watchlistTable(watchlists: readonly Watchlist[]): string {
  if (watchlists.length === 0) return 'no watchlists';
  const rows = watchlists.map((w) =>
    [
      w.id,
      w.names.join(','),
      `${w.intervalSeconds}s`,
      w.running ? 'running' : w.nextRunAt,
      w.lastRun ? `${w.lastRun.changes ?? 0} changes` : 'not run yet',
      w.webhookUrl ?? '-',
    ].join('\t'),
  );
  return ['id\tnames\tinterval\tnext run\tlast run\twebhook', ...rows].join('\n');
}

export function changesTable(changes: readonly WatchChange[]): string {
  if (changes.length === 0) return 'no changes';
  return changes
    .map((c) =>
      [c.seq, c.at, c.kind, c.username, c.platform, `${c.from}->${c.to}`, c.url]
        .map((cell) => terminalLine(String(cell)))
        .join('\t'),
    )
    .join('\n');
}

/** Runs `work` with a client; a client failure becomes the command line's error (exit code by status). */
async function withClient(
  connection: { baseUrl: string; apiKey: string },
  work: (client: UserscoutClient) => Promise<void>,
): Promise<void> {
  try {
    await work(new UserscoutClient({ ...connection, deadlineMs: 60_000 }));
  } catch (error) {
    throw commandErrorOf(error);
  }
}

export function watchAdd(
  connection: { baseUrl: string; apiKey: string },
  names: string[],
  options: WatchAddOptions,
  io: Io,
): Promise<void> {
  const body = newWatchlist(names, options);
  return withClient(connection, async (client) => {
    const created = await client.createWatchlist(body);
    io.out(created.id);
    io.err(
      `watchlist ${created.id} created: ${created.names.join(', ')}, every ${created.intervalSeconds} s; its first run starts now`,
    );
    io.err(`webhook secret (shown only now): ${created.webhookSecret ?? ''}`);
  });
}

export function watchList(
  connection: { baseUrl: string; apiKey: string },
  format: 'table' | 'json',
  io: Io,
): Promise<void> {
  return withClient(connection, async (client) => {
    const watchlists = await client.watchlists();
    io.out(format === 'json' ? JSON.stringify(watchlists, null, 2) : watchlistTable(watchlists));
  });
}

export function watchChanges(
  connection: { baseUrl: string; apiKey: string },
  id: string,
  options: { after?: string; format: 'table' | 'json' },
  io: Io,
): Promise<void> {
  const after = options.after === undefined ? undefined : Number(options.after);
  if (after !== undefined && !(Number.isInteger(after) && after >= 0))
    throw new UserscoutError('invalid_argument', `--after must be a whole number; received ${options.after}`);
  return withClient(connection, async (client) => {
    const changes = await client.watchlistChanges(id, after === undefined ? {} : { after });
    io.out(options.format === 'json' ? JSON.stringify(changes, null, 2) : changesTable(changes));
  });
}

export function watchRun(connection: { baseUrl: string; apiKey: string }, id: string, io: Io): Promise<void> {
  return withClient(connection, async (client) => {
    const status = await client.runWatchlist(id);
    io.err(status === 'running' ? `watchlist ${id} is running already` : `watchlist ${id} runs now`);
  });
}
