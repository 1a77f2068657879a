import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import type { AppDeps } from '../deps.js';
import { installErrorHandler } from '../error-handler.js';
import { Metrics } from '../metrics.js';
import { type OpsPort, opsRoutes } from './ops.js';

async function appOn(port: OpsPort, metricsToken: string) {
  const metrics = new Metrics();
  const deps = {
    config: loadConfig({ metricsToken }, {}),
    metrics,
    store: { ping: async () => true },
    runner: { stats: async () => ({ queued: 0, running: 0 }) },
    shuttingDown: () => false,
  } as unknown as AppDeps;
  const app = Fastify();
  installErrorHandler(app, metrics);
  await app.register(async (scope) => opsRoutes(scope, deps, port));
  return app;
}

const scrape = (app: Awaited<ReturnType<typeof appOn>>, authorization?: string) =>
  app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });

describe('/metrics', () => {
  it('is not served by the public API without a token', async () => {
    const app = await appOn('api', '');
    expect((await scrape(app)).statusCode).toBe(404);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('takes the token as a bearer, on the API and on a worker port alike', async () => {
    for (const port of ['api', 'ops'] as const) {
      const app = await appOn(port, 'tok-123');
      expect((await scrape(app)).statusCode, port).toBe(401);
      expect((await scrape(app, 'Bearer wrong')).statusCode, port).toBe(401);
      const ok = await scrape(app, 'Bearer tok-123');
      expect(ok.statusCode, port).toBe(200);
      expect(ok.body).toContain('userscout_queue_depth');
    }
  });

  it('is served on a worker port without a token when none is set', async () => {
    const app = await appOn('ops', '');
    expect((await scrape(app)).statusCode).toBe(200);
  });
});
