/**
 * GET /api/search/{id}/report.html: the search as one self-contained HTML file
 * (report-html.ts), to keep or print to PDF. Read like the search itself: anyone
 * with the id (only its key for a private search), as GET /api/search?id= is.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { accountLinks, ProfileUrlMatcher } from '../../engine/linked-accounts.js';
import { UserscoutError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { type ReportHealth, renderReport } from '../report-html.js';
import { EventsParams } from '../schemas.js';
import { canRead } from '../search-access.js';
import { everyOutcomeView, searchResponse } from '../search-response.js';

/** Nothing in a report may be fetched; its own style is inline. */
export const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export async function reportRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const profileUrls = new ProfileUrlMatcher(deps.catalogue.platforms);
  const names = new Map(deps.catalogue.platforms.map((p) => [p.id, p.name]));
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/search/:id/report.html',
    {
      schema: {
        tags: ['search'],
        summary: 'The search as a self-contained HTML report',
        operationId: 'getSearchReport',
        description:
          'One HTML file with no external requests (printable to PDF from any browser): the parameters and times, a summary that counts every non-answer reason apart from the misses, the hits with profile details and evidence, the linked accounts, the non-answers grouped by reason and the platform health at the time.',
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
      const snapshot = await deps.store.snapshot(id, {});
      if (!snapshot || !canRead(snapshot.search, request.caller))
        throw new UserscoutError('search_not_found');
      const results = snapshot.outcomes.map((s) => s.outcome);
      const view = everyOutcomeView(snapshot.search, results, accountLinks(results, profileUrls));
      const health: ReportHealth[] = [...deps.health.unhealthyIds()].map((platformId) => {
        const entry = deps.health.get(platformId);
        return {
          id: platformId,
          name: names.get(platformId) ?? platformId,
          verdict: entry?.verdict ?? 'broken',
          ...(entry?.reason ? { reason: entry.reason } : {}),
        };
      });
      const html = renderReport(searchResponse(view, deps.config.coverageWarningPercent), {
        generatedAt: deps.now(),
        health,
        generator: 'userscout',
      });
      return reply
        .header('content-security-policy', REPORT_CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(html);
    },
  );
}
