/**
 * Builds the Fastify app (no listen): plugins, hooks, routes, OpenAPI. Every
 * collaborator is passed in, so tests drive it with inject() or over HTTP.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { installAuth } from './auth.js';
import type { AppDeps } from './deps.js';
import { installErrorHandler } from './error-handler.js';
import { installRateLimits } from './rate-limits.js';
import { eventRoutes } from './routes/events.js';
import { opsRoutes } from './routes/ops.js';
import { platformRoutes } from './routes/platforms.js';
import { searchRoutes } from './routes/search.js';
import { ErrorBody, Platform, Result } from './schemas.js';
import { webPage } from './web-page.js';

export const API_VERSION = '1.0.0';

function trustProxy(value: string): FastifyServerOptions['trustProxy'] {
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value) as unknown as FastifyServerOptions['trustProxy'];
  return value.split(',').map((s) => s.trim());
}

export async function buildApp(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: trustProxy(deps.config.trustProxy),
    genReqId: () => randomUUID(),
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // No type coercion: `{"username": 42}` is a bad request, not the name "42".
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  // JSON only: Fastify also parses text/plain by default, which would turn a
  // form-encoded or plain body into a 400 instead of the 415 it deserves.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.addSchema(ErrorBody);
  app.addSchema(Result);
  app.addSchema(Platform);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'userscout',
        version: API_VERSION,
        description:
          'Checks whether a username exists on 725+ online platforms. Start a search with POST /api/search, then poll GET /api/search?id= (or listen to /api/search/{id}/events) until status is completed or error. Units: estimatedTime in seconds, responseTime in milliseconds. Errors share one body: {error, code, requestId}. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers; a 429 also has Retry-After. Every /api/ response but a 401 carries X-Userscout-Tier: free or professional, the tier that served it (no key is the free tier).',
      },
      tags: [
        { name: 'search', description: 'Start and follow searches' },
        { name: 'platforms', description: 'The catalogue of platforms' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Professional tier key' },
          bearer: { type: 'http', scheme: 'bearer', description: 'The same key as a bearer token' },
        },
      },
      security: [{}, { apiKey: [] }, { bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  installErrorHandler(app);
  installAuth(app, deps.store);
  await installRateLimits(app, deps.config, deps.rateLimitStore);

  await app.register(async (scope) => searchRoutes(scope, deps));
  await app.register(async (scope) => eventRoutes(scope, deps));
  await app.register(async (scope) => platformRoutes(scope, deps));
  await app.register(async (scope) => opsRoutes(scope, deps));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(webPage({ dir: deps.config.webDir }));
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  return app;
}
