/**
 * Builds the Fastify app (no listen): plugins, hooks, routes, OpenAPI. Every
 * collaborator is passed in, so tests drive it with inject() or over HTTP.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { trustProxyOf } from '../config.js';
import { installAuth } from './auth.js';
import { clientErrorHandler } from './client-error.js';
import type { AppDeps } from './deps.js';
import { frameworkErrors, installErrorHandler } from './error-handler.js';
import { KeyRevocations } from './key-revocations.js';
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_HEADERS, OPENAPI_OPTIONS } from './openapi.js';
import { installRateLimits } from './rate-limits.js';
import { RequestLog } from './request-log.js';
import { eventRoutes } from './routes/events.js';
import { graphRoutes } from './routes/graph.js';
import { opsRoutes } from './routes/ops.js';
import { platformRoutes } from './routes/platforms.js';
import { reportRoutes } from './routes/report.js';
import { searchRoutes } from './routes/search.js';
import { searchesRoutes } from './routes/searches.js';
import { usageRoutes } from './routes/usage.js';
import { watchlistRoutes } from './routes/watchlists.js';
import { ErrorBody, Platform, Result, SearchSummary } from './schemas.js';
import { WatchlistResponse } from './watchlist-schemas.js';
import { webPage } from './web-page.js';

/**
 * USERSCOUT_TRUST_PROXY as Fastify takes it. Fastify now ignores a bare hop count (it cannot tell
 * a proxy from a client that connected directly); the setting's hop count keeps its meaning as a
 * function, which the README says to use only where the proxies are the only way in.
 */
function fastifyTrustProxy(value: string): FastifyServerOptions['trustProxy'] {
  const trusted = trustProxyOf(value);
  return typeof trusted === 'number' ? (_address: string, hop: number) => hop < trusted : trusted;
}

export async function buildApp(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: fastifyTrustProxy(deps.config.trustProxy),
    genReqId: () => randomUUID(),
    logController: new RequestLog(),
    // No type coercion: `{"username": 42}` is a bad request, not the name "42".
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // What Node's HTTP parser refuses gets our error body too.
    clientErrorHandler,
    frameworkErrors,
  });
  // JSON only: Fastify also parses text/plain by default, which would turn a
  // form-encoded or plain body into a 400 instead of the 415 it deserves.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No answer is ever to be read as another type than it says (JSON as HTML, say).
    reply.header('x-content-type-options', 'nosniff');
    if (request.url === '/docs' || request.url.startsWith('/docs/')) reply.headers(DOCS_HEADERS);
  });

  app.addSchema(ErrorBody);
  app.addSchema(Result);
  app.addSchema(Platform);
  app.addSchema(SearchSummary);
  app.addSchema(WatchlistResponse);
  await app.register(swagger, OPENAPI_OPTIONS);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
    validatorUrl: false,
  });

  installErrorHandler(app, deps.metrics);
  installAuth(app, deps.store, deps.config.ipv6Prefix);
  await installRateLimits(app, deps.config, deps.rateLimitStore);

  await app.register(async (scope) => searchRoutes(scope, deps));
  await app.register(async (scope) => searchesRoutes(scope, deps));
  await app.register(async (scope) => usageRoutes(scope, deps));
  const revocations = new KeyRevocations(deps, deps.config.revocationCheckMs, (err: unknown) =>
    app.log.warn({ err }, 'reading revoked keys failed'),
  );
  app.addHook('onReady', async () => revocations.start());
  app.addHook('onClose', async () => revocations.stop());
  await app.register(async (scope) => eventRoutes(scope, deps, revocations));
  await app.register(async (scope) => reportRoutes(scope, deps));
  await app.register(async (scope) => graphRoutes(scope, deps));
  await app.register(async (scope) => platformRoutes(scope, deps));
  await app.register(async (scope) => opsRoutes(scope, deps, 'api'));
  await app.register(async (scope) => watchlistRoutes(scope, deps));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(webPage({ dir: deps.config.webDir }));
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  return app;
}
