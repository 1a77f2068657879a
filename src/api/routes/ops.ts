/**
 * Health, readiness and Prometheus metrics. The metrics name egress addresses
 * and proxy hosts, so they are an operator's: behind USERSCOUT_METRICS_TOKEN, and
 * without one only on a worker's own port, never on the public API.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserscoutError } from '../../errors.js';
import type { AppDeps } from '../deps.js';

/** Where the routes are served: the public API, or a worker's ops port. */
export type OpsPort = 'api' | 'ops';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The request carries `Authorization: Bearer TOKEN`; compared in constant time. */
function bearerIs(request: FastifyRequest, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

export async function opsRoutes(app: FastifyInstance, deps: AppDeps, port: OpsPort): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const storeOk = await deps.store.ping().catch(() => false);
    const ready = storeOk && !deps.shuttingDown();
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', store: storeOk, shuttingDown: deps.shuttingDown() });
  });

  const token = deps.config.metricsToken;
  if (port === 'api' && token === '') return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== '' && !bearerIs(request, token))
      throw new UserscoutError(
        'unauthorized',
        'GET /metrics takes Authorization: Bearer USERSCOUT_METRICS_TOKEN',
      );
    const stats = await deps.runner.stats();
    deps.metrics.queued.set(stats.queued);
    deps.metrics.running.set(stats.running);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
