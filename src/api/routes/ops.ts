/**
 * Health, readiness and Prometheus metrics.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

export async function opsRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const storeOk = await deps.store.ping().catch(() => false);
    const ready = storeOk && !deps.shuttingDown();
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', store: storeOk, shuttingDown: deps.shuttingDown() });
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const stats = await deps.runner.stats();
    deps.metrics.queued.set(stats.queued);
    deps.metrics.running.set(stats.running);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
