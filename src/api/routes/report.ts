/**
 * GET /api/search/{id}/report.html: the search as one self-contained HTML file
 * (report-html.ts), to keep or print; GET /api/search/{id}/report.pdf: the same
 * report printed to PDF by headless Chromium (src/report/pdf.ts), one print at a
 * time. Read like the search itself: anyone with the id (only its key for a
 * private search), as GET /api/search?id= is.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { chromiumPath } from '../../engine/transport/browser.js';
import { UserscoutError } from '../../errors.js';
import { fileSafe } from '../../report/file-name.js';
import { PdfPrinter } from '../../report/pdf.js';
import type { Caller } from '../auth.js';
import type { AppDeps } from '../deps.js';
import { readPlatformHealth } from '../platform-health.js';
import { type ReportExtras, type ReportHealth, renderReport } from '../report-html.js';
import { EventsParams } from '../schemas.js';
import { searchResponse } from '../search-response.js';
import { searchViewReader } from '../search-view.js';

/** Nothing in a report may be fetched; its own style is inline. */
const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The health states a report lists: those that make a platform's answers doubtful or absent. */
const REPORTED_STATES: ReadonlySet<string> = new Set(['rule_drift', 'broken', 'blocked']);

const REPORT_CONTENTS =
  'the parameters and times, a summary that counts every non-answer reason apart from the misses, the hits with profile details and evidence, the linked accounts, the follow-up searches of a recursive search (each with the hit that led to it), the non-answers grouped by reason and the platform health at the time (as GET /api/platforms shows it, rule drift included)';

export async function reportRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const read = searchViewReader(deps);
  const ids = deps.catalogue.platforms.map((p) => p.id);
  const names = new Map(deps.catalogue.platforms.map((p) => [p.id, p.name]));
  const printer = new PdfPrinter({
    executablePath: chromiumPath(deps.config.browserPath),
    timeoutMs: deps.config.pdfTimeoutMs,
    queue: deps.config.pdfQueue,
  });
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  /** The report of a search as `caller` may read it, and its name. */
  async function report(
    id: string,
    caller: Caller,
    log: FastifyBaseLogger,
    followUpHref: ReportExtras['followUpHref'],
  ): Promise<{ html: string; username: string }> {
    const found = await read(id, caller, { all: true, log });
    if (!found) throw new UserscoutError('search_not_found');
    const health: ReportHealth[] = [];
    for (const [platformId, view] of await readPlatformHealth(deps, ids)) {
      if (!REPORTED_STATES.has(view.state)) continue;
      health.push({
        id: platformId,
        name: names.get(platformId) ?? platformId,
        verdict: view.state,
        ...(view.reason ? { reason: view.reason } : {}),
      });
    }
    const html = renderReport(searchResponse(found.view, deps.config.coverageWarningPercent), {
      generatedAt: deps.now(),
      health,
      generator: 'userscout',
      ...(followUpHref ? { followUpHref } : {}),
    });
    return { html, username: found.search.username };
  }

  api.get(
    '/api/search/:id/report.html',
    {
      schema: {
        tags: ['search'],
        summary: 'The search as a self-contained HTML report',
        operationId: 'getSearchReport',
        description: `One HTML file with no external requests (printable to PDF from any browser, or as GET /api/search/{id}/report.pdf): ${REPORT_CONTENTS}. Each follow-up search links to its own report.`,
        params: EventsParams,
        response: {
          200: {
            description: 'The report',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          404: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      const { html } = await report(
        request.params.id,
        request.caller,
        request.log,
        // Beside this one: /api/search/{id}/report.html.
        (queryId) => `../${encodeURIComponent(queryId)}/report.html`,
      );
      return reply
        .header('content-security-policy', REPORT_CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(html);
    },
  );

  api.get(
    '/api/search/:id/report.pdf',
    {
      schema: {
        tags: ['search'],
        summary: 'The search as a PDF report',
        operationId: 'getSearchReportPdf',
        description: `The HTML report (GET /api/search/{id}/report.html) printed to PDF (A4) by headless Chromium on the service, with every request of the page refused while it prints: ${REPORT_CONTENTS}. The follow-up searches are named by id. The service prints one report at a time and lets a few wait (USERSCOUT_PDF_QUEUE); past them it answers 503 pdf_busy with Retry-After. Where Chromium is not installed (USERSCOUT_BROWSER_PATH) it answers 503 pdf_unavailable.`,
        params: EventsParams,
        response: {
          200: {
            description: 'The report',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          404: { $ref: 'Error#' },
          500: { $ref: 'Error#' },
          503: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { html, username } = await report(id, request.caller, request.log, undefined);
      const pdf = await printer.print(html);
      return reply
        .header('content-disposition', `inline; filename="userscout-${fileSafe(username)}.pdf"`)
        .type('application/pdf')
        .send(pdf);
    },
  );
}
