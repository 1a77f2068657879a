/**
 * `userscout catalogue sync --from whatsmyname|sherlock|maigret [--url URL]`:
 * downloads an upstream site list, imports and validates it, and stores it in
 * our format as `<dataDir>/catalogues/<source>.json`, where the `catalogue`
 * setting (or `catalogue merge`) can use it. The stored file is replaced only
 * by a list that passed every check, and all at once; a failed download or a
 * bad list leaves it as it was.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../catalogue/atomic-write.js';
import type { ImportRejection } from '../catalogue/importers/types.js';
import {
  describeDownloadFailure,
  isUpstreamSource,
  UPSTREAM_SOURCES,
  UPSTREAM_URLS,
  type UpstreamSource,
  validateUpstream,
} from '../catalogue/upstream.js';
import { loadConfig } from '../config.js';
import { CatalogueError, UserscoutError } from '../errors.js';
import { SYNC_FORMATS, type SyncFormat } from './choices.js';
import type { Io } from './io.js';

export { SYNC_FORMATS, type SyncFormat } from './choices.js';

/** Folder of the data dir where synced lists are stored. */
const CATALOGUES_DIR = 'catalogues';

export interface SyncCommandOptions {
  from: string;
  url?: string;
  dataDir?: string;
  /** Milliseconds for the whole download. @default 60000 */
  timeout?: string;
  format?: string;
}

export interface SyncDeps {
  /** Environment the settings are read from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface SyncReport {
  readonly source: UpstreamSource;
  readonly url: string;
  /** Where the list was stored, in our format. */
  readonly file: string;
  readonly entries: number;
  readonly imported: number;
  readonly rejected: number;
  readonly reasons: readonly ImportRejection[];
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** The largest list accepted; the biggest upstream list is a few MB. */
const MAX_BYTES = 64 * 1_048_576;

export async function runCatalogueSync(
  options: SyncCommandOptions,
  io: Pick<Io, 'out'>,
  deps: SyncDeps = {},
): Promise<SyncReport> {
  const source = options.from;
  if (!isUpstreamSource(source)) {
    throw new UserscoutError(
      'invalid_argument',
      `--from must be one of ${UPSTREAM_SOURCES.join(', ')}; received ${source}`,
    );
  }
  const format = (options.format ?? 'text') as SyncFormat;
  if (!SYNC_FORMATS.includes(format)) {
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${SYNC_FORMATS.join(', ')}; received ${options.format}`,
    );
  }
  const url = options.url ?? UPSTREAM_URLS[source];
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new UserscoutError('invalid_argument', `--url must be an http:// or https:// URL; received ${url}`);
  }
  const timeoutMs = options.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(options.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 600_000) {
    throw new UserscoutError(
      'invalid_argument',
      `--timeout must be a whole number of milliseconds from 100 to 600000; received ${options.timeout}`,
    );
  }
  const config = loadConfig(
    options.dataDir !== undefined ? { dataDir: options.dataDir } : {},
    deps.env ?? process.env,
  );
  const file = join(config.dataDir, CATALOGUES_DIR, `${source}.json`);
  const unchanged = `; ${file} is unchanged`;

  const text = await download(url, timeoutMs, unchanged);
  let result: ReturnType<typeof validateUpstream>;
  try {
    result = validateUpstream(text, source, url);
  } catch (error) {
    if (error instanceof CatalogueError)
      throw new CatalogueError(`${error.message}${unchanged}`, { cause: error });
    throw error;
  }
  writeFileAtomic(file, `${JSON.stringify(result.document, null, 2)}\n`);

  const report: SyncReport = {
    source,
    url,
    file,
    entries: result.entries,
    imported: result.imported,
    rejected: result.rejected.length,
    reasons: result.rejected,
  };
  io.out(formatSyncReport(report, format));
  return report;
}

/** The body as text; a failure becomes one line that says what happened and that nothing changed. */
async function download(url: string, timeoutMs: number, unchanged: string): Promise<string> {
  const failed = (why: string, cause?: unknown) =>
    new UserscoutError('network_unavailable', `cannot download ${url}: ${why}${unchanged}`, { cause });
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json, text/plain, */*' } });
  } catch (error) {
    throw failed(signal.aborted ? `no answer within ${timeoutMs} ms` : describeDownloadFailure(error), error);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw failed(`the server answered HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_BYTES) {
    await response.body?.cancel();
    throw failed(`the list is larger than ${MAX_BYTES} bytes`);
  }
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_BYTES) throw new Error(`the list is larger than ${MAX_BYTES} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (signal.aborted) throw failed(`the download took longer than ${timeoutMs} ms`, error);
    throw failed(error instanceof Error ? error.message : String(error), error);
  }
}

function formatSyncReport(report: SyncReport, format: SyncFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  // Upstream lists leave hundreds of entries out; the reasons are in the JSON report.
  return [
    `${report.source}: ${report.entries} entries, ${report.imported} imported, ${report.rejected} rejected${report.rejected > 0 ? ' (reasons: --format json)' : ''}; stored in ${report.file}`,
    `use it with: USERSCOUT_CATALOGUE=${report.file} userscout serve   (or --catalogue ${report.file})`,
  ].join('\n');
}
