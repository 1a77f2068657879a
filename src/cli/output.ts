/**
 * Output of `userscout search`, pure (outcomes in, text out): a table for people
 * (status in colour, and row by row as results arrive, on a terminal), the honest
 * summary of each name (how many platforms answered, how many could not be
 * reached), JSON (per name the object `GET /api/search?id=` returns) and CSV.
 * What a site or a catalogue wrote is printed cleaned of terminal controls (terminal-text.ts).
 */
import { renderReport } from '../api/report-html.js';
import { type SearchJson, searchResponse } from '../api/search-response.js';
import { type AccountLink, accountLinks, type ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import { byPlatformName, type Outcome, type OutcomeStatus } from '../engine/verdict/outcome.js';
import {
  type Coverage,
  countStatuses,
  coverageWarning,
  plural,
  summaryClauses,
  unansweredReasons,
} from '../report/coverage.js';
import { type Graph, searchGraph } from '../report/graph.js';
import { graphEdgesCsv, graphNodesCsv } from '../report/graph-csv.js';
import { graphMl } from '../report/graphml.js';
import { outcomesCsv } from '../report/outcome-csv.js';
import type { FollowUp } from '../store/store.js';
import { terminalCsv, terminalJson, terminalLine, terminalText } from './terminal-text.js';

export { OUTPUT_FORMATS, type OutputFormat } from './choices.js';

export interface SearchReport {
  /** Stands for the API's queryId: the CLI stores nothing, so it is fresh per run. */
  readonly id: string;
  readonly username: string;
  readonly status: 'completed';
  readonly totalPlatforms: number;
  readonly results: readonly Outcome[];
  /** When the search started and ended (ms epoch). */
  readonly startedAt: number;
  readonly finishedAt: number;
  /** With --recursive: the follow-up searches of the new names its hits gave (their ids are their reports'). */
  readonly followUps?: readonly FollowUp[];
}

function sortOutcomes(outcomes: readonly Outcome[]): Outcome[] {
  return [...outcomes].sort(byPlatformName);
}

/** The rows a table shows: hits, or every outcome with `--all`. */
export function shownInTable(outcome: Outcome, all: boolean): boolean {
  return all || outcome.status === 'hit';
}

// SGR colour on, and the matching off (not a full reset, so nothing else is undone).
const STATUS_COLOURS: Readonly<Record<OutcomeStatus, readonly [string, string]>> = {
  hit: ['\x1b[32m', '\x1b[39m'],
  miss: ['\x1b[2m', '\x1b[22m'],
  unknown: ['\x1b[33m', '\x1b[39m'],
  error: ['\x1b[31m', '\x1b[39m'],
  invalid: ['\x1b[2m', '\x1b[22m'],
};

const HEADER = ['PLATFORM', 'STATUS', 'TIME', 'URL'] as const;

/** Column widths of a table, and whether its status cells are coloured. */
export interface TableLayout {
  readonly widths: readonly number[];
  readonly colour: boolean;
}

function statusText(o: Pick<Outcome, 'status' | 'reason'>): string {
  return o.reason ? `${o.status} (${o.reason})` : o.status;
}

function cellsOf(o: Outcome): string[] {
  return [terminalLine(o.platform), statusText(o), `${o.responseTime} ms`, terminalLine(o.url)];
}

/** Widths that fit the header and every row given. */
function layoutFor(rows: readonly Outcome[], colour: boolean): TableLayout {
  const cells = rows.map(cellsOf);
  return { widths: HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length))), colour };
}

/**
 * Widths known before any result arrives, for rows printed as they are found:
 * the longest platform name searched, and the longest status a row may show.
 */
export function layoutAhead(
  platformNames: readonly string[],
  statuses: readonly string[],
  timeoutMs: number,
  colour: boolean,
): TableLayout {
  return {
    widths: [
      Math.max(HEADER[0].length, ...platformNames.map((n) => terminalLine(n).length)),
      Math.max(HEADER[1].length, ...statuses.map((s) => s.length)),
      Math.max(HEADER[2].length, `${timeoutMs} ms`.length),
      0,
    ],
    colour,
  };
}

function line(cells: readonly string[], layout: TableLayout, status?: OutcomeStatus): string {
  return cells
    .map((v, i) => {
      if (i === cells.length - 1) return v;
      const pad = ' '.repeat(Math.max(0, layout.widths[i]! - v.length));
      if (i === 1 && status && layout.colour) {
        const [on, off] = STATUS_COLOURS[status];
        return `${on}${v}${off}${pad}`;
      }
      return v + pad;
    })
    .join('  ')
    .trimEnd();
}

export function formatHeader(layout: TableLayout): string {
  return line(HEADER, layout);
}

export function formatRow(outcome: Outcome, layout: TableLayout): string {
  return line(cellsOf(outcome), layout, outcome.status);
}

/** The whole table, sorted by platform; empty when no row is shown (the summary says why). */
export function formatTable(report: SearchReport, all: boolean, colour = false): string {
  const rows = sortOutcomes(report.results).filter((o) => shownInTable(o, all));
  if (rows.length === 0) return '';
  const layout = layoutFor(rows, colour);
  return [formatHeader(layout), ...rows.map((o) => formatRow(o, layout))].join('\n');
}

/** The heading of one name's table when several names are searched. */
export function formatHeading(username: string): string {
  return `== ${terminalLine(username)} ==`;
}

/**
 * One name's summary: hits among the platforms that answered, and what the others
 * did, so "no hits" never stands for "not reached". For example
 * `alice: no hits among the 6 platforms that answered; 985 could not be reached (timeout 900, dns 85); 991 platforms in 10.2 s`.
 */
export function formatSummary(report: SearchReport): string {
  const parts = summaryClauses(countStatuses(report.results), report.results);
  const seconds = ((report.finishedAt - report.startedAt) / 1000).toFixed(1);
  parts.push(`${plural(report.totalPlatforms, 'platform')} in ${seconds} s`);
  return terminalLine(`${report.username}: ${parts.join('; ')}`);
}

/** The warning after a summary whose coverage is low (the API's `warning`); undefined when it is not. */
export function formatCoverageWarning(report: SearchReport, coverage: Coverage): string | undefined {
  const warning = coverageWarning(coverage, unansweredReasons(report.results));
  return warning === undefined ? undefined : terminalLine(`${report.username}: warning: ${warning}`);
}

export type { SearchJson };

/**
 * One name as the API reports a finished search (the same builder as
 * `GET /api/search?id=`): hits only, or every outcome with `all` (`include=all`).
 */
function searchJson(
  report: SearchReport,
  all: boolean,
  warningPercent: number,
  links: readonly AccountLink[] = [],
): SearchJson {
  return searchResponse(
    {
      search: {
        id: report.id,
        username: report.username,
        state: report.status,
        // The command line runs the search at once, unqueued: what it expected is what it took.
        estimatedSeconds: Math.max(1, Math.ceil((report.finishedAt - report.startedAt) / 1000)),
        createdAt: report.startedAt,
        finishedAt: report.finishedAt,
        ...(report.followUps ? { followUps: report.followUps } : {}),
      },
      total: report.totalPlatforms,
      progress: { checked: report.results.length, byStatus: countStatuses(report.results) },
      results: report.results.filter((o) => all || o.status === 'hit'),
      unansweredReasons: unansweredReasons(report.results),
      links,
    },
    warningPercent,
  );
}

/**
 * The report of each search, as the service's report.html gives it, with every
 * outcome; `followUpHref` says where a follow-up's report is (by its id).
 */
export function formatHtml(
  reports: readonly SearchReport[],
  warningPercent: number,
  profileUrls: ProfileUrlMatcher | undefined,
  now: number,
  followUpHref?: (queryId: string) => string | undefined,
): string[] {
  return reports.map((r) =>
    terminalText(
      renderReport(
        searchJson(r, true, warningPercent, profileUrls ? accountLinks(r.results, profileUrls) : []),
        {
          generatedAt: now,
          generator: 'userscout (command line)',
          ...(followUpHref ? { followUpHref } : {}),
        },
      ),
    ),
  );
}

/**
 * The graph of every search of the run (the names, their lookalikes and
 * follow-ups): the same graph as the service's for the same searches.
 */
function reportsGraph(
  reports: readonly SearchReport[],
  warningPercent: number,
  profileUrls: ProfileUrlMatcher | undefined,
): Graph {
  return searchGraph(
    reports.map((r) =>
      searchJson(r, true, warningPercent, profileUrls ? accountLinks(r.results, profileUrls) : []),
    ),
  );
}

/** The run's graph as GraphML, cleaned of terminal controls as every output is. */
export function formatGraphMl(
  reports: readonly SearchReport[],
  warningPercent: number,
  profileUrls: ProfileUrlMatcher | undefined,
): string {
  return terminalText(graphMl(reportsGraph(reports, warningPercent, profileUrls)));
}

/** The run's graph as a nodes CSV and an edges CSV. */
export function formatGraphCsv(
  reports: readonly SearchReport[],
  warningPercent: number,
  profileUrls: ProfileUrlMatcher | undefined,
): { readonly nodes: string; readonly edges: string } {
  const graph = reportsGraph(reports, warningPercent, profileUrls);
  return { nodes: terminalCsv(graphNodesCsv(graph)), edges: terminalCsv(graphEdgesCsv(graph)) };
}

/** One object for one name, an array of them for several. */
export function formatJson(reports: readonly SearchReport[], all: boolean, warningPercent: number): string {
  const objects = reports.map((r) => searchJson(r, all, warningPercent));
  return terminalJson(JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2));
}

/** CSV of every search, sorted like the other formats; hits only unless `all`. */
export function formatCsv(reports: readonly SearchReport[], all: boolean): string {
  return terminalCsv(
    outcomesCsv(
      reports.map((r) => ({
        username: r.username,
        outcomes: sortOutcomes(r.results).filter((o) => all || o.status === 'hit'),
      })),
    ),
  );
}
