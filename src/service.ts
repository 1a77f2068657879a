/**
 * Puts the service together from the configuration: catalogue, store, engine,
 * runner, events and the HTTP app. The embedded default is SQLite and the
 * in-process runner; nothing else needs to run.
 */

import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './api/app.js';
import type { AppDeps } from './api/deps.js';
import { followUpStarter } from './api/follow-ups.js';
import { LiveHealth } from './api/live-health.js';
import { redactedLogger } from './api/log-redact.js';
import { Metrics } from './api/metrics.js';
import { buildOpsApp } from './api/ops-app.js';
import { LocalSearchQuota } from './api/search-quota.js';
import { watchlistSearchStarter } from './api/watchlist-searches.js';
import { PlatformHealth } from './catalogue/health.js';
import type { Catalogue } from './catalogue/platform.js';
import { loadCatalogueFrom } from './catalogue/source.js';
import { createRedisBackend, listenPort, throttled } from './cluster.js';
import type { Config } from './config.js';
import { browserNotice, createEngine, loadSessions } from './engine/create-engine.js';
import { TransportTally } from './engine/transport/transport-tally.js';
import { ConfigError } from './errors.js';
import { leanHeap } from './lean-heap.js';
import { type EventHub, LocalEventHub } from './runner/events.js';
import type { SearchExecutor } from './runner/in-process.js';
import { InProcessRunner } from './runner/in-process.js';
import { OutcomeTally } from './runner/outcome-tally.js';
import type { Runner } from './runner/runner.js';
import { failSearch, runSearchJob, searchJobDeps } from './runner/search-job.js';
import { SearchThreads } from './runner/search-threads.js';
import { scheduleSelfCheck } from './runner/self-check-schedule.js';
import { createStore, type StoreOptions } from './store/create-store.js';
import { recentLatenciesReader } from './store/recent-latencies.js';
import type { SearchRecord, Store } from './store/store.js';
import { WatchlistScheduler } from './watchlists/scheduler.js';

export interface Service {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly runner: Runner;
  readonly catalogue: Catalogue;
  /**
   * Starts the runner (resuming unfinished searches), the sweeper, health and watchlists, without
   * listening: the app then answers `app.inject`, as an embedding process or a test drives it.
   */
  start(): Promise<void>;
  /** `start`, then listens. Returns the base URL. */
  listen(): Promise<string>;
  /** Stops accepting, interrupts running searches (they stay resumable), closes everything. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly logger?: FastifyServerOptions['logger'];
  /** Use this catalogue instead of loading one (tests). */
  readonly catalogue?: Catalogue;
  readonly plugins?: readonly ((app: FastifyInstance) => Promise<void>)[];
}

export const DATABASE_FILE = 'userscout.db';
export const HEALTH_FILE = 'health.json';

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const now = Date.now;
  if (config.leanHeap) leanHeap('long-running');
  const catalogue = options.catalogue ?? loadCatalogueFrom(config.catalogue || undefined).catalogue;
  const fileHealth = PlatformHealth.read(join(config.dataDir, HEALTH_FILE));
  if (!config.redisUrl && config.role !== 'all') {
    throw new ConfigError('role (USERSCOUT_ROLE)', config.role, "'all' unless REDIS_URL is set");
  }
  // Cluster mode: Redis store, events and rate limits, BullMQ runner. Logs go to the app once it exists.
  let log: FastifyBaseLogger | undefined;
  // The store of record on PostgreSQL when DATABASE_URL is set (in either mode).
  const records: StoreOptions | undefined = config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, log: (message) => log?.info(message) }
    : undefined;
  const backend = config.redisUrl
    ? createRedisBackend(config, {
        onError: throttled(10_000, (error: unknown) => log?.warn({ err: error }, 'Redis error')),
        onSearchStart: (search, worker) => log?.info({ queryId: search.id, worker }, 'search job started'),
        onRecovered: (requeued, worker) => log?.info({ requeued, worker }, 'recovery pass ran'),
        now,
        ...(records ? { records } : {}),
      })
    : undefined;
  // Embedded mode's engines run on search threads and read the sessions there: a bad setting
  // must stop the start here, before anything is opened, not fail each search.
  const onThread = !backend && !records && config.searchThread;
  if (onThread) loadSessions(config, catalogue);
  const databasePath = join(config.dataDir, DATABASE_FILE);
  const store = backend?.store ?? createStore(records ?? { kind: 'sqlite', path: databasePath });
  const events: EventHub = backend?.events ?? new LocalEventHub();
  const metrics = new Metrics(true);
  // What the browsers and escalations cost, counted in memory the search threads share.
  const tally = new TransportTally();
  metrics.watchTransports(tally);
  // The searches' outcomes, counted where they are produced (here or on a search thread) before they are stored.
  const outcomeTally = new OutcomeTally();
  metrics.watchOutcomes(outcomeTally);
  let shuttingDown = false;

  // Embedded mode runs searches on threads of their own (each on its own SQLite connection) unless told not to.
  const thread = onThread
    ? new SearchThreads(
        { config, catalogue, databasePath, tally: tally.buffer, outcomes: outcomeTally.buffer },
        {
          events,
          onThreadError: (err) => log?.error({ err }, 'search thread failed'),
          onNoteFailed: (message, platform) =>
            log?.warn({ platform, error: message }, 'platform statistic or cached outcome not written'),
        },
        config.searchThreads,
      )
    : undefined;
  const engine = thread
    ? undefined
    : createEngine(config, catalogue, {
        ...(backend
          ? {
              rateBudget: backend.rateBudget,
              sharedChecks: backend.sharedChecks,
              browserSlots: backend.browserSlots,
            }
          : {}),
        tally,
        controls: store,
        siteLimits: store.siteLimits,
        onSiteLimitsError: throttled(10_000, (err: unknown) =>
          log?.warn({ err }, 'learned site limits not read or kept'),
        ),
        transportMemory: store.transportMemory,
        onTransportMemoryError: throttled(10_000, (err: unknown) =>
          log?.warn({ err }, 'remembered transports not read or kept'),
        ),
      });
  metrics.watchControls(() => store.listControls());
  const health = new LiveHealth(fileHealth, () => store.listPlatformHealth());
  // The scheduled self-check runs where the engine is: here, or on the search thread.
  const selfCheck =
    engine && config.role !== 'api'
      ? scheduleSelfCheck(config, {
          platforms: catalogue.platforms,
          engine,
          store,
          onError: (err, platform) =>
            log?.warn({ err, platform: platform.id }, 'scheduled self-check failed'),
        })
      : undefined;
  // Read at most every few seconds, for the API's estimates and the checks' order alike.
  const latencies = recentLatenciesReader(store);
  // Searches run here (in-thread runner, or a cluster worker) when there is no search thread.
  const jobDeps =
    engine &&
    searchJobDeps(config, {
      engine,
      store,
      events,
      catalogue,
      now,
      latencies,
      tally: outcomeTally,
      onNoteFailed: (err, outcome) =>
        log?.warn({ err, platform: outcome.platformId }, 'platform statistic or cached outcome not written'),
    });
  // What follows a search, once it has run (its follow-ups, src/api/follow-ups.ts): the API's, set once the app is built.
  let followUps: ((search: SearchRecord) => Promise<void>) | undefined;
  const afterSearch = async (search: SearchRecord) =>
    followUps?.(search).catch((err: unknown) =>
      log?.error({ err, queryId: search.id }, 'follow-up searches not started'),
    );
  const execute: SearchExecutor =
    thread?.execute ?? ((search, signal) => runSearchJob(search, jobDeps!, signal));
  const runner: Runner =
    backend && jobDeps
      ? backend.createRunner(jobDeps, afterSearch)
      : new InProcessRunner(store, execute, {
          maxRunning: config.maxRunningSearches,
          maxQueued: config.maxQueuedSearches,
          retryAfterSeconds: config.queueFullRetryAfterSeconds,
          afterSearch,
          // Not a platform's failure (those are outcomes): the runner's own, so the search ends.
          onError: (err, search) => {
            log?.error({ err, queryId: search.id }, 'search failed');
            void failSearch(search.id, 'internal error while running the search', { store, events, now });
          },
        });

  // Watchlists run where the API is (their searches start as the API starts them); see src/watchlists/scheduler.ts.
  let scheduler: WatchlistScheduler | undefined;
  const appDeps: AppDeps = {
    watchlistScheduler: { poke: () => scheduler?.poke() },
    config,
    catalogue,
    health,
    store,
    runner,
    events,
    metrics,
    now,
    latencies,
    // The ledger is read only where it holds every request: one process, the engine in this thread.
    ...(engine && !backend ? { unsentAt: (site: string) => engine.unsent(site) } : {}),
    searchQuota: backend?.searchQuota ?? new LocalSearchQuota(now),
    shuttingDown: () => shuttingDown,
    plugins: options.plugins ?? [],
    ...(backend ? { rateLimitStore: backend.rateLimitStore } : {}),
  };
  // A worker process serves only health, readiness and its metrics.
  const app =
    backend && config.role === 'worker'
      ? await buildOpsApp(appDeps, redactedLogger(options.logger ?? false))
      : await buildApp(appDeps, redactedLogger(options.logger ?? false));
  log = app.log;
  followUps = followUpStarter(appDeps, app.log);
  if (!(backend && config.role === 'worker'))
    scheduler = new WatchlistScheduler({
      store,
      startSearch: watchlistSearchStarter(appDeps, app.log),
      now,
      tickMs: config.watchlistTickMs,
      leaseMs: config.watchlistLeaseMs,
      maxRunMs: config.watchlistMaxRunMs,
      maxVariants: config.maxVariantsPerRequest,
      retry: {
        baseMs: config.webhookRetryBaseMs,
        maxMs: config.webhookRetryMaxMs,
        retryForMs: config.webhookRetryForMs,
      },
      webhookTimeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
      maxDeliveries: config.webhookMaxInFlight,
      maxDeliveriesPerKey: config.webhookMaxInFlightPerKey,
      keptDeliveries: { perKey: config.webhookMaxStoredPerKey, retentionMs: config.webhookRetentionMs },
      // Repeats every tick while the store is out of reach: said once a minute at most.
      onError: throttled(60_000, (err: unknown, what: string) => log?.error({ err }, `${what} failed`)),
      onRunFinished: (watchlist, run) =>
        log?.info(
          {
            watchlistId: watchlist.id,
            runId: run.id,
            changes: run.changes,
            searches: Object.keys(run.searches).length,
            skipped: Object.keys(run.skipped).length,
          },
          'watchlist run finished',
        ),
    });

  const sweep = async () => {
    const started = performance.now();
    const removed = await store.sweepSearches(now() - config.retentionDays * 86_400_000);
    // Measured: the sweep goes in batches, so its time is spread, not one pause.
    if (removed > 0)
      app.log.info({ removed, ms: Math.round(performance.now() - started) }, 'old searches swept');
  };
  let sweeper: NodeJS.Timeout | undefined;

  const startOnce = async () => {
    const browserOff = config.role !== 'api' && browserNotice(config, catalogue.platforms);
    if (browserOff) app.log.warn(browserOff);
    if (backend && !(await backend.waitUntilReady(2_000)))
      app.log.warn('Redis does not answer yet: answering 503 until it does');
    // The schema first (PostgreSQL migrates before its first query); during an outage it
    // migrates at a later one instead, and the service answers 503 until then.
    if (records && !(await store.ping()))
      app.log.warn('The store of record does not answer yet: answering 503 until it does');
    if (backend) {
      await runner.start();
      await sweep().catch((err: unknown) => app.log.warn({ err }, 'sweep failed'));
    } else {
      await thread?.start();
      await runner.start();
      await sweep();
    }
    sweeper = setInterval(
      () => void sweep().catch((err: unknown) => app.log.error({ err }, 'sweep failed')),
      3_600_000,
    );
    sweeper.unref();
    await health.refresh();
    health.start();
    scheduler?.start();
  };
  // `listen` starts it too: a caller that started it first must not start a second sweeper and runner.
  let starting: Promise<void> | undefined;
  const start = () => {
    starting ??= startOnce();
    return starting;
  };

  return {
    app,
    store,
    runner,
    catalogue,
    start,
    async listen() {
      await start();
      return app.listen({ host: config.host, port: listenPort(config).port, backlog: config.listenBacklog });
    },
    async close() {
      shuttingDown = true;
      if (sweeper) clearInterval(sweeper);
      await scheduler?.stop();
      health.stop();
      await selfCheck?.stop();
      await app.close();
      await runner.stop();
      await thread?.close();
      await events.close();
      await engine?.close();
      await store.close();
      await backend?.close();
    },
  };
}
