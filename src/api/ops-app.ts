/**
 * The HTTP app of a worker process (cluster mode): only health, readiness and
 * the process's Prometheus metrics; no API routes.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { clientErrorHandler } from './client-error.js';
import type { AppDeps } from './deps.js';
import { frameworkErrors, installErrorHandler } from './error-handler.js';
import { opsRoutes } from './routes/ops.js';

export async function buildOpsApp(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    genReqId: () => randomUUID(),
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    clientErrorHandler,
    frameworkErrors,
  });
  installErrorHandler(app);
  await app.register(async (scope) => opsRoutes(scope, deps));
  return app;
}
