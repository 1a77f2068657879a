/**
 * GET /api/search/{id}/report.html: the search as one self-contained HTML file
 * (report-html.ts), to keep or print to PDF. Read like the search itself: anyone
 * with the id (only its key for a private search), as GET /api/search?id= is.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { readPlatformHealth } from '../platform-health.js';
import { type ReportHealth, renderReport } from '../report-html.js';
import { EventsParams } from '../schemas.js';
import { searchResponse } from '../search-response.js';
import { searchViewReader } from '../search-view.js';

/** Nothing in a report may be fetched; its own style is inline. */
const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The health states a report lists: those that make a platform's answers doubtful or absent. */
const REPORTED_STATES: ReadonlySet<string> = new Set(['rule_drift', 'broken', 'blocked']);

export async function reportRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const read = searchViewReader(deps);
  const ids = deps.catalogue.platforms.map((p) => p.id);
  const names = new Map(deps.catalogue.platforms.map((p) => [p.id, p.name]));
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/search/:id/report.html',
    {
      schema: {
        tags: ['search'],
        summary: 'The search as a self-contained HTML report',
        operationId: 'getSearchReport',
        description:
          'One HTML file with no external requests (printable to PDF from any browser): the parameters and times, a summary that counts every non-answer reason apart from the misses, the hits with profile details and evidence, the linked accounts, the follow-up searches of a recursive search (each with the hit that led to it and a link to its own report), the non-answers grouped by reason and the platform health at the time (as GET /api/platforms shows it, rule drift included).',
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
      const { id } = request.params;
      const found = await read(id, request.caller, { all: true, log: request.log });
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
        // Beside this one: /api/search/{id}/report.html.
        followUpHref: (queryId) => `../${encodeURIComponent(queryId)}/report.html`,
      });
      return reply
        .header('content-security-policy', REPORT_CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(html);
    },
  );
}
