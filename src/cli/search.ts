/**
 * `userscout search NAME [NAME...]`: runs the engine in this process, shows a
 * progress bar on stderr when it is a terminal, prints results to stdout (as
 * they are found when stdout is a terminal) and each name's summary after its
 * results; with `--variants`, each name's lookalike names are checked after it,
 * as names of their own. Exits 3 when too few platforms answered to trust a missing hit.
 */

import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { followUpNames } from '../api/follow-ups.js';
import { writeFileAtomic } from '../catalogue/atomic-write.js';
import { checkUsername } from '../catalogue/check-username.js';
import { lookalikeNames, type Variant } from '../catalogue/lookalike-names.js';
import { selectPlatforms } from '../catalogue/select.js';
import { usernameProblem } from '../catalogue/username-rule.js';
import { type Config, loadConfig } from '../config.js';
import { browserNotice } from '../engine/create-engine.js';
import { chromiumPath } from '../engine/transport/browser.js';
import { ERROR_REASONS, INVALID_REASONS, type Outcome, UNKNOWN_REASONS } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { countStatuses, coverageOf } from '../report/coverage.js';
import { fileSafe } from '../report/file-name.js';
import { FILE_FORMATS } from './choices.js';
import { loadCommandCatalogue, parseCategories } from './command-inputs.js';
import { EXIT_LOW_COVERAGE } from './exit-codes.js';
import type { Io } from './io.js';
import { type NetworkCommandOptions, networkOverrides } from './network-options.js';
import {
  formatCoverageWarning,
  formatCsv,
  formatGraphCsv,
  formatGraphMl,
  formatHeader,
  formatHeading,
  formatHtml,
  formatJson,
  formatRow,
  formatSummary,
  formatTable,
  layoutAhead,
  OUTPUT_FORMATS,
  type OutputFormat,
  type SearchReport,
  shownInTable,
} from './output.js';
import {
  type Checker,
  type CheckRun,
  type FollowUpList,
  localChecker,
  remoteChecker,
} from './search-checkers.js';

export type { Io } from './io.js';

export interface SearchCommandOptions extends NetworkCommandOptions {
  /** A userscout service to search through instead of this machine's engine (USERSCOUT_SERVER). */
  server?: string;
  /** Its professional API key (USERSCOUT_KEY); never printed. */
  key?: string;
  /**
   * Write the JSON, CSV, HTML, PDF or GraphML to this file instead of stdout (one file per name
   * for HTML and PDF); for graph-csv, a prefix (PREFIX-nodes.csv, PREFIX-edges.csv) or a folder.
   */
  output?: string;
  catalogue?: string;
  category?: string[];
  platform?: string[];
  tag?: string[];
  top?: boolean;
  nsfw?: boolean;
  format?: string;
  all?: boolean;
  progress?: boolean;
  /** Also check each name's lookalike names (`USERSCOUT_MAX_VARIANTS` a name). */
  variants?: boolean;
  /** Also check the new names each name's hits give (`USERSCOUT_MAX_FOLLOW_UPS` a name; depth 1). */
  recursive?: boolean;
}

/** Every status a table row may show, for widths known before any result. */
const ROW_STATUSES = [
  'hit',
  'miss',
  ...UNKNOWN_REASONS.map((r) => `unknown (${r})`),
  ...ERROR_REASONS.map((r) => `error (${r})`),
  ...INVALID_REASONS.map((r) => `invalid (${r})`),
];

export async function runSearch(
  names: string[],
  options: SearchCommandOptions,
  io: Io,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const format = (options.format ?? 'table') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${OUTPUT_FORMATS.join(', ')}; received ${options.format}`,
    );
  }
  if (options.output !== undefined && format === 'table')
    throw new UserscoutError(
      'invalid_argument',
      `--output needs --format ${OUTPUT_FORMATS.filter((f) => f !== 'table').join(', ')}`,
    );
  if (options.output === undefined && FILE_FORMATS.includes(format))
    throw new UserscoutError(
      'invalid_argument',
      format === 'pdf'
        ? '--format pdf needs --output FILE (one file per name when several are searched)'
        : '--format graph-csv needs --output PREFIX (writes PREFIX-nodes.csv and PREFIX-edges.csv) or --output FOLDER/',
    );
  for (const name of names) checkUsername(name, true);
  const all = options.all ?? false;
  const categories = parseCategories(options.category);
  const config = loadConfig(networkOverrides(options), env, 'cli');
  // Said before the search, not after it.
  if (format === 'pdf')
    await (await import('../report/pdf.js')).requireChromium(chromiumPath(config.browserPath));
  const server = options.server ?? config.server;
  const checker = server
    ? await remoteChecker(
        // The client and the progress bar are loaded only when used: a local search without a bar
        // keeps their memory.
        new (await import('../client/client.js')).UserscoutClient({
          baseUrl: server,
          ...(options.key || config.apiKey ? { apiKey: options.key || config.apiKey } : {}),
        }),
        {
          categories,
          platforms: options.platform,
          tags: options.tag,
          top: options.top,
          includeNsfw: options.nsfw,
        },
      )
    : await localCheckerFor(options, config, categories, io);

  // Each name, then (with --variants) its lookalike names; with --recursive, follow-ups join as found.
  const targets: Target[] = names.flatMap((username) => [
    { username, id: randomUUID(), recursive: options.recursive === true },
    ...(options.variants
      ? lookalikeNames(username, config.maxVariantsPerRequest).map((v) => ({
          username: v.username,
          id: randomUUID(),
          variant: v,
        }))
      : []),
  ]);

  // A table on a terminal shows rows as they are found, in columns sized before the first.
  const live = format === 'table' && io.outIsTerminal === true;
  const liveLayout = live
    ? layoutAhead(checker.names, all ? ROW_STATUSES : ['hit'], checker.timeoutMs, io.colour ?? false)
    : undefined;
  // The table's summary belongs to it on stdout; JSON and CSV keep stdout for data.
  const summaryTo = format === 'table' ? io.out : io.err;
  const reports: SearchReport[] = [];
  let lowCoverage = false;
  const controller = new AbortController();
  const onSigint = () => controller.abort(new UserscoutError('invalid_argument', 'interrupted'));
  process.once('SIGINT', onSigint);
  try {
    // Follow-ups are pushed while this runs: the array's iterator reaches them too.
    for (const target of targets) {
      const { username, variant } = target;
      const run = await checker.run(username, controller.signal, variant, target.recursive);
      // A lookalike name no platform here accepts is not checked, nor shown.
      if (variant && run.total === 0) continue;
      if (format === 'table' && targets.length > 1) io.out(formatHeading(username));
      const startedAt = Date.now();
      const outcomes: Outcome[] = [];
      const showBar = options.progress !== false && io.stderr.isTTY === true;
      const bar = showBar
        ? new (await import('cli-progress')).SingleBar({
            stream: io.stderr,
            format: `${username} [{bar}] {value}/{total} checked | {hits} hits | {duration}s`,
            hideCursor: true,
            clearOnComplete: true,
          })
        : undefined;
      bar?.start(run.total, 0, { hits: 0 });
      let hits = 0;
      let rowsShown = 0;
      // A platform answered again (a service checks again one a hit links to): the later answer replaces it.
      const indexOf = new Map<string, number>();
      for await (const outcome of run.outcomes) {
        const earlier = indexOf.get(outcome.platformId);
        if (earlier === undefined) {
          indexOf.set(outcome.platformId, outcomes.length);
          outcomes.push(outcome);
        } else {
          if (outcomes[earlier]?.status === 'hit') hits--;
          outcomes[earlier] = outcome;
        }
        if (outcome.status === 'hit') hits++;
        if (liveLayout && shownInTable(outcome, all)) {
          // Clear the bar's line first; it redraws itself below the row. The bar goes back to the
          // cursor position it saved when it stops, so save the new one (ESC 7) below the row.
          if (bar) io.stderr.write('\r\x1b[2K');
          if (rowsShown++ === 0) io.out(formatHeader(liveLayout));
          io.out(formatRow(outcome, liveLayout));
          if (bar) io.stderr.write('\x1b7');
        }
        bar?.increment(earlier === undefined ? 1 : 0, { hits });
      }
      bar?.stop();
      if (!controller.signal.aborted) checker.finished(outcomes);
      const finishedAt = Date.now();
      const followUpList = target.recursive
        ? await followUpsOfRun(run, checker, outcomes, username, config.maxFollowUps, targets)
        : undefined;
      const followUps = followUpList?.followUps;
      if (followUpList?.pending)
        io.err(
          `The service has not started every follow-up search of "${username}" yet (its queue may be full); it starts them later: read GET /api/search?id=${run.id ?? target.id} for their ids.`,
        );
      const report: SearchReport = {
        id: run.id ?? target.id,
        username,
        status: 'completed',
        totalPlatforms: run.total,
        results: outcomes,
        startedAt,
        finishedAt,
        ...(followUps ? { followUps } : {}),
      };
      reports.push(report);
      if (format === 'table' && !live) {
        const table = formatTable(report, all, io.colour ?? false);
        if (table) io.out(table);
      }
      const coverage = coverageOf(countStatuses(outcomes), config.coverageWarningPercent);
      summaryTo(formatSummary(report));
      const warning = formatCoverageWarning(report, coverage);
      if (warning) {
        io.err(warning);
        lowCoverage = true;
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
    await checker.close();
  }
  if (format === 'json') emit(io, options.output, formatJson(reports, all, config.coverageWarningPercent));
  if (format === 'csv') emit(io, options.output, formatCsv(reports, options.all ?? false));
  if (format === 'html' || format === 'pdf') {
    const pdf = format === 'pdf';
    const fileOf = (report: SearchReport) =>
      options.output && reports.length > 1 ? perName(options.output, report.username) : options.output;
    const byId = new Map(reports.map((r) => [r.id, r]));
    // A follow-up's report: the file beside this one, or (searched on the service) the service's.
    // A PDF links only to the service: a link to a file beside it does not lead there from a PDF.
    const followUpHref = (queryId: string) => {
      const local = byId.get(queryId);
      if (local) {
        const file = fileOf(local);
        return file === undefined || pdf ? undefined : basename(file);
      }
      return server
        ? new URL(`/api/search/${encodeURIComponent(queryId)}/report.html`, server).href
        : undefined;
    };
    const pages = formatHtml(
      reports,
      config.coverageWarningPercent,
      checker.profileUrls,
      Date.now(),
      followUpHref,
    );
    const print = pdf ? (await import('../report/pdf.js')).printPdf : undefined;
    for (const [i, page] of pages.entries()) {
      const file = fileOf(reports[i]!);
      if (print && file !== undefined)
        emitFile(
          io,
          file,
          await print(page, {
            executablePath: chromiumPath(config.browserPath),
            timeoutMs: config.pdfTimeoutMs,
          }),
        );
      else emit(io, file, page);
    }
  }
  if (format === 'graphml')
    emit(io, options.output, formatGraphMl(reports, config.coverageWarningPercent, checker.profileUrls));
  if (format === 'graph-csv' && options.output !== undefined) {
    const { nodes, edges } = formatGraphCsv(reports, config.coverageWarningPercent, checker.profileUrls);
    const files = graphCsvFiles(options.output);
    emitFile(io, files.nodes, nodes);
    emitFile(io, files.edges, edges);
  }
  return lowCoverage ? EXIT_LOW_COVERAGE : 0;
}

/** One search of the run: a name asked for, a lookalike of one, or a follow-up. */
interface Target {
  readonly username: string;
  /** Its report's id (a follow-up's is known before it runs: its parent's report links to it). */
  readonly id: string;
  readonly variant?: Variant;
  /** Its new names are searched after it (never a lookalike's or a follow-up's: depth 1). */
  readonly recursive?: boolean;
}

/**
 * The follow-ups of a recursive search that has run: the service's (searched
 * there), or, run here, the new names its hits gave (the service's rule,
 * src/api/follow-ups.ts), each added to `targets` to be searched in turn.
 */
async function followUpsOfRun(
  run: CheckRun,
  checker: Checker,
  outcomes: readonly Outcome[],
  username: string,
  max: number,
  targets: Target[],
): Promise<FollowUpList | undefined> {
  if (run.followUps) return run.followUps();
  if (!checker.profileUrls) return undefined;
  const followUps = followUpNames(outcomes, checker.profileUrls, username, max).map((name) => {
    const problem = usernameProblem(name.username);
    if (problem) return { ...name, notSearched: `username ${problem}` };
    const id = randomUUID();
    targets.push({ username: name.username, id });
    return { ...name, queryId: id };
  });
  return { followUps, pending: false };
}

/** This machine's engine over the platforms the filters choose. */
async function localCheckerFor(
  options: SearchCommandOptions,
  config: Config,
  categories: ReturnType<typeof parseCategories>,
  io: Io,
): Promise<Checker> {
  const catalogue = await loadCommandCatalogue(options.catalogue ?? (config.catalogue || undefined), io.err);
  const platforms = selectPlatforms(catalogue, {
    categories,
    platforms: options.platform,
    tags: options.tag,
    top: options.top,
    includeNsfw: options.nsfw ?? config.includeNsfw,
  });
  if (platforms.length === 0) throw new UserscoutError('invalid_argument', 'no platform matches the filters');
  const notice = browserNotice(config, platforms);
  if (notice) io.err(`warning: ${notice}`);
  return localChecker(config, catalogue, platforms);
}

/** Data to stdout, or to a file (written whole: a reader never sees half of it). */
function emit(io: Io, file: string | undefined, text: string): void {
  if (file === undefined) {
    io.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  emitFile(io, file, text);
}

/** A file written whole, and said on stderr. */
function emitFile(io: Io, file: string, data: string | Uint8Array): void {
  writeFileAtomic(file, data);
  io.err(`wrote ${file}`);
}

/**
 * The two files of `--format graph-csv --output TARGET`: in the folder TARGET (one that exists,
 * or a path ending in /) graph-nodes.csv and graph-edges.csv, as the service names them;
 * else TARGET-nodes.csv and TARGET-edges.csv (a `.csv` ending of TARGET left out).
 */
export function graphCsvFiles(target: string): { readonly nodes: string; readonly edges: string } {
  if (target.endsWith('/') || (existsSync(target) && statSync(target).isDirectory()))
    return { nodes: join(target, 'graph-nodes.csv'), edges: join(target, 'graph-edges.csv') };
  const prefix = target.replace(/\.csv$/i, '');
  return { nodes: `${prefix}-nodes.csv`, edges: `${prefix}-edges.csv` };
}

/** report.html, alice → report-alice.html */
function perName(file: string, name: string): string {
  const safe = fileSafe(name);
  const dot = file.lastIndexOf('.');
  return dot > file.lastIndexOf('/') ? `${file.slice(0, dot)}-${safe}${file.slice(dot)}` : `${file}-${safe}`;
}
