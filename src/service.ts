/**
 * Puts the service together from the configuration: catalogue, store, engine,
 * runner, events and the HTTP app. The embedded default is SQLite and the
 * in-process runner; nothing else needs to run.
 */
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './api/app.js';
import { Metrics } from './api/metrics.js';
import { PlatformHealth } from './catalogue/health.js';
import type { Catalogue } from './catalogue/platform.js';
import { loadCatalogueFrom } from './catalogue/source.js';
import type { Config } from './config.js';
import { createEngine } from './engine/create-engine.js';
import type { Engine } from './engine/engine.js';
import { type EventHub, LocalEventHub } from './runner/events.js';
import { InProcessRunner } from './runner/in-process.js';
import type { Runner } from './runner/runner.js';
import { createStore } from './store/create-store.js';
import type { Store } from './store/store.js';

export interface Service {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly runner: Runner;
  readonly engine: Engine;
  readonly catalogue: Catalogue;
  /** Starts the runner (resuming unfinished searches) and listens. Returns the base URL. */
  listen(): Promise<string>;
  /** Stops accepting, interrupts running searches (they stay resumable), closes everything. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly logger?: FastifyServerOptions['logger'];
  /** Use this catalogue instead of loading one (tests). */
  readonly catalogue?: Catalogue;
  readonly now?: () => number;
  readonly plugins?: readonly ((app: FastifyInstance) => Promise<void>)[];
}

export const DATABASE_FILE = 'userscout.db';
export const HEALTH_FILE = 'health.json';

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const now = options.now ?? Date.now;
  const catalogue = options.catalogue ?? loadCatalogueFrom(config.catalogue || undefined).catalogue;
  const health = PlatformHealth.read(join(config.dataDir, HEALTH_FILE));
  const store = createStore({ kind: 'sqlite', path: join(config.dataDir, DATABASE_FILE) });
  const engine = createEngine(config, catalogue);
  const events: EventHub = new LocalEventHub();
  const metrics = new Metrics(true);
  const platformsById = new Map(catalogue.platforms.map((p) => [p.id, p]));
  let shuttingDown = false;

  const runner = new InProcessRunner(
    {
      engine,
      store,
      events,
      platformsById,
      cache: {
        hitSeconds: config.cacheHitSeconds,
        missSeconds: config.cacheMissSeconds,
        otherSeconds: config.cacheOtherSeconds,
      },
      now,
      onOutcome: (outcome) => metrics.observe(outcome),
    },
    { maxRunning: config.maxRunningSearches, maxQueued: config.maxQueuedSearches },
  );

  const app = await buildApp(
    {
      config,
      catalogue,
      health,
      store,
      runner,
      events,
      metrics,
      now,
      latencies: async () => new Map((await store.platformStats()).map((s) => [s.platformId, s.recentMs])),
      shuttingDown: () => shuttingDown,
      plugins: options.plugins ?? [],
    },
    options.logger ?? false,
  );

  const sweep = async () => {
    const removed = await store.sweepSearches(now() - config.retentionDays * 86_400_000);
    if (removed > 0) app.log.info({ removed }, 'old searches swept');
  };
  let sweeper: NodeJS.Timeout | undefined;

  return {
    app,
    store,
    runner,
    engine,
    catalogue,
    async listen() {
      await runner.start();
      await sweep();
      sweeper = setInterval(
        () => void sweep().catch((err: unknown) => app.log.error({ err }, 'sweep failed')),
        3_600_000,
      );
      sweeper.unref();
      return app.listen({ host: config.host, port: config.port });
    },
    async close() {
      shuttingDown = true;
      if (sweeper) clearInterval(sweeper);
      await app.close();
      await runner.stop();
      await events.close();
      await engine.close();
      await store.close();
    },
  };
}
