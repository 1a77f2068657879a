/**
 * `userscout platforms [--category C] [--stats]`: the platforms of the
 * catalogue, whether each is searched, and with `--stats` the live statistics
 * the service keeps per platform in `<dataDir>/userscout.db` (checks, outcome
 * counts, response times, last check).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CATEGORIES, type Category, isCategory } from '../catalogue/categories.js';
import { PlatformHealth } from '../catalogue/health.js';
import type { Catalogue } from '../catalogue/platform.js';
import { loadCatalogueFrom } from '../catalogue/source.js';
import { type PlatformList, UserscoutClient } from '../client/client.js';
import { loadConfig } from '../config.js';
import type { OutcomeStatus } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { DATABASE_FILE, HEALTH_FILE } from '../service.js';
import { createStore } from '../store/create-store.js';
import type { PlatformStats } from '../store/store.js';
import { PLATFORMS_FORMATS, type PlatformsFormat } from './choices.js';
import type { Io } from './io.js';
import { commandErrorOf } from './search-checkers.js';
import { terminalJson, terminalText } from './terminal-text.js';

export { PLATFORMS_FORMATS, type PlatformsFormat } from './choices.js';

export interface PlatformsCommandOptions {
  category?: string[];
  catalogue?: string;
  stats?: boolean;
  dataDir?: string;
  format?: string;
  /** List the platforms of this userscout service instead of the local catalogue (USERSCOUT_SERVER). */
  server?: string;
  key?: string;
}

/** Whether a platform is searched: `disabled` by its entry, `broken` by the last self-check. */
export type PlatformState = 'enabled' | 'disabled' | 'broken';

export interface PlatformRow {
  readonly name: string;
  readonly id: string;
  readonly category: Category;
  readonly nsfw: boolean;
  readonly state: PlatformState;
  readonly reason?: string;
  /** Present with --stats when the service has checked the platform. */
  readonly stats?: {
    readonly checks: number;
    readonly byStatus: Readonly<Record<OutcomeStatus, number>>;
    readonly meanMs: number;
    readonly recentMs: number;
    readonly lastCheckedAt: string;
  };
}

/** The rows to show, in catalogue order. Pure. */
function platformRows(
  catalogue: Catalogue,
  options: {
    readonly categories?: readonly Category[];
    readonly health?: PlatformHealth;
    readonly stats?: readonly PlatformStats[];
  } = {},
): PlatformRow[] {
  const only = options.categories?.length ? new Set(options.categories) : undefined;
  const stats = new Map(options.stats?.map((s) => [s.platformId, s]));
  return catalogue.platforms
    .filter((p) => !only || only.has(p.category))
    .map((p) => {
      const health = options.health?.get(p.id);
      const state: PlatformState = !p.enabled
        ? 'disabled'
        : health?.verdict === 'broken'
          ? 'broken'
          : 'enabled';
      const reason =
        state === 'disabled' ? p.disabledReason : state === 'broken' ? health?.reason : undefined;
      const s = stats.get(p.id);
      return {
        name: p.name,
        id: p.id,
        category: p.category,
        nsfw: p.nsfw,
        state,
        ...(reason ? { reason } : {}),
        ...(s
          ? {
              stats: {
                checks: s.checks,
                byStatus: s.byStatus,
                meanMs: Math.round(s.meanMs),
                recentMs: Math.round(s.recentMs),
                lastCheckedAt: new Date(s.lastCheckedAt).toISOString(),
              },
            }
          : {}),
      };
    });
}

/** Rows from a service's GET /api/platforms, in its order. Pure. */
function remotePlatformRows(
  platforms: readonly PlatformList['platforms'][number][],
  categories: readonly Category[] = [],
): PlatformRow[] {
  const only = categories.length ? new Set(categories) : undefined;
  return platforms
    .filter((p) => !only || only.has(p.category))
    .map((p) => ({
      name: p.name,
      id: p.id,
      category: p.category,
      nsfw: p.nsfw,
      state: p.enabled ? 'enabled' : 'disabled',
      ...(!p.enabled && p.disabledReason ? { reason: p.disabledReason } : {}),
    }));
}

function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: ReadonlySet<number>,
) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function formatPlatforms(rows: readonly PlatformRow[], withStats: boolean): string {
  const enabled = rows.filter((r) => r.state === 'enabled').length;
  const categories = new Set(rows.map((r) => r.category)).size;
  const footer = `${rows.length} platforms, ${enabled} searched, in ${categories} categor${categories === 1 ? 'y' : 'ies'}`;
  if (!withStats) {
    const body = rows.map((r) => [
      r.name,
      r.category,
      r.nsfw ? 'nsfw' : '',
      r.state,
      r.reason ? r.reason.replace(/\s+/g, ' ') : '',
    ]);
    return `${table(['PLATFORM', 'CATEGORY', 'NSFW', 'STATE', 'REASON'], body, new Set())}\n${footer}`;
  }
  const dash = '-';
  const body = rows.map((r) => {
    const s = r.stats;
    return [
      r.name,
      r.category,
      r.state,
      s ? String(s.checks) : dash,
      s ? String(s.byStatus.hit) : dash,
      s ? String(s.byStatus.miss) : dash,
      s ? String(s.byStatus.unknown) : dash,
      s ? String(s.byStatus.error) : dash,
      s ? String(s.byStatus.invalid) : dash,
      s ? String(s.meanMs) : dash,
      s ? String(s.recentMs) : dash,
      s ? s.lastCheckedAt : dash,
    ];
  });
  const header = [
    'PLATFORM',
    'CATEGORY',
    'STATE',
    'CHECKS',
    'HIT',
    'MISS',
    'UNKNOWN',
    'ERROR',
    'INVALID',
    'MEAN MS',
    'RECENT MS',
    'LAST CHECKED',
  ];
  const checked = rows.filter((r) => r.stats).length;
  return `${table(header, body, new Set([3, 4, 5, 6, 7, 8, 9, 10]))}\n${footer}; ${checked} checked by the service`;
}

export async function runPlatforms(
  options: PlatformsCommandOptions,
  io: Pick<Io, 'out' | 'err'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<PlatformRow[]> {
  const format = (options.format ?? 'table') as PlatformsFormat;
  if (!PLATFORMS_FORMATS.includes(format)) {
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${PLATFORMS_FORMATS.join(', ')}; received ${options.format}`,
    );
  }
  const categories: Category[] = [];
  for (const c of options.category ?? []) {
    if (!isCategory(c))
      throw new UserscoutError('invalid_argument', `--category ${c} is not one of ${CATEGORIES.join(', ')}`);
    categories.push(c);
  }
  const config = loadConfig(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}, env);
  const server = options.server ?? config.server;
  if (server) {
    if (options.stats || options.catalogue)
      throw new UserscoutError(
        'invalid_argument',
        '--stats and --catalogue read local files; not with --server',
      );
    const key = options.key || config.apiKey;
    const client = new UserscoutClient({ baseUrl: server, ...(key ? { apiKey: key } : {}) });
    const list = await client.platforms().catch((error: unknown) => {
      throw commandErrorOf(error);
    });
    const rows = remotePlatformRows(list.platforms, categories);
    io.out(
      format === 'json'
        ? terminalJson(JSON.stringify({ platforms: rows, total: rows.length }, null, 2))
        : terminalText(formatPlatforms(rows, false)),
    );
    return rows;
  }
  const { catalogue } = loadCatalogueFrom(options.catalogue ?? (config.catalogue || undefined));
  const health = PlatformHealth.read(join(config.dataDir, HEALTH_FILE));

  let stats: PlatformStats[] | undefined;
  if (options.stats) {
    const path = join(config.dataDir, DATABASE_FILE);
    // Only read: a data dir without a database has no statistics, and gets none created.
    if (existsSync(path)) {
      const store = createStore({ kind: 'sqlite', path });
      try {
        stats = await store.platformStats();
      } finally {
        await store.close();
      }
    } else {
      stats = [];
      io.err(`no statistics yet: ${path} does not exist (the service records every check it makes there)`);
    }
  }
  const rows = platformRows(catalogue, { categories, health, ...(stats ? { stats } : {}) });
  io.out(
    format === 'json'
      ? terminalJson(JSON.stringify({ platforms: rows, total: rows.length }, null, 2))
      : terminalText(formatPlatforms(rows, options.stats ?? false)),
  );
  return rows;
}
