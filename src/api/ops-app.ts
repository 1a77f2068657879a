/**
 * The HTTP app of a worker process (cluster mode): only health, readiness and
 * the process's Prometheus metrics; no API routes.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { clientErrorHandler } from './client-error.js';
import type { AppDeps } from './deps.js';
import { frameworkErrors, installErrorHandler } from './error-handler.js';
import { RequestLog } from './request-log.js';
import { opsRoutes } from './routes/ops.js';

export async function buildOpsApp(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    genReqId: () => randomUUID(),
    logController: new RequestLog(),
    clientErrorHandler,
    frameworkErrors,
  });
  installErrorHandler(app, deps.metrics);
  await app.register(async (scope) => opsRoutes(scope, deps, 'ops'));
  return app;
}
