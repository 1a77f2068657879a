/**
 * What the HTTP app is built from: every collaborator the routes use, passed
 * in by the service (or a test). Its own module so that the app and its routes
 * both import it without importing each other.
 */
import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Catalogue } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import type { EventHub } from '../runner/events.js';
import type { Runner } from '../runner/runner.js';
import type { Store } from '../store/store.js';
import type { HealthSource } from './live-health.js';
import type { Metrics } from './metrics.js';
import type { SearchQuota } from './search-quota.js';

export interface AppDeps {
  readonly config: Config;
  readonly catalogue: Catalogue;
  /** Platform health: the health file, and the scheduled self-check's verdicts while the service runs. */
  readonly health: HealthSource;
  readonly store: Store;
  readonly runner: Runner;
  readonly events: EventHub;
  readonly metrics: Metrics;
  readonly now: () => number;
  /** Recent response time per platform id (ms), for estimates. */
  readonly latencies: () => Promise<ReadonlyMap<string, number>>;
  /** Requests not yet sent to a site, from the scheduler, where the engine runs in this thread. */
  readonly unsentAt?: ((site: string) => number) | undefined;
  readonly shuttingDown: () => boolean;
  /** The search limit's counters: in memory, or shared (Redis) in cluster mode. */
  readonly searchQuota: SearchQuota;
  /** Shared rate-limit counters (Redis) in cluster mode. */
  readonly rateLimitStore?: RateLimitPluginOptions['store'];
  /** The watchlist scheduler, told when a run is asked for; absent where none runs (a worker). */
  readonly watchlistScheduler?: { poke(): void };
  /** Extra routes (the web page). */
  readonly plugins?: readonly ((app: FastifyInstance) => Promise<void>)[];
}
