/**
 * The cluster's composition root: cluster mode's parts, all on one Redis (the
 * store, live events, shared rate limits, the cluster-wide request budgets per origin,
 * checks shared between workers and the BullMQ runner), wired from the
 * configuration. With a store of record (PostgreSQL, DATABASE_URL) the store
 * is split: what must last there, and Redis keeps only the outcome cache, control
 * records and leases (src/store/split-store.ts). The service picks
 * these instead of the embedded ones when REDIS_URL is set. Nothing here waits
 * for Redis to answer: a process starts during an outage and answers 503 until
 * Redis is back.
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { redisRateLimitStore } from './api/rate-limit-redis.js';
import type { SearchQuota } from './api/search-quota.js';
import { RedisSearchQuota } from './api/search-quota-redis.js';
import type { Config } from './config.js';
import type { SharedChecks } from './engine/shared-checks.js';
import type { BrowserSlots } from './engine/transport/browser-slots.js';
import { RedisBrowserSlots } from './redis/browser-slots.js';
import { bullmqOptions, closeRedis, createRedisClient, waitUntilReady } from './redis/connection.js';
import { FallbackRateBudget } from './redis/fallback-budget.js';
import { RedisRateBudget } from './redis/rate-budget.js';
import { RedisSharedChecks } from './redis/shared-checks.js';
import { BullMqRunner } from './runner/bullmq.js';
import type { EventHub } from './runner/events.js';
import { RedisEventHub } from './runner/redis-events.js';
import type { Runner } from './runner/runner.js';
import type { SearchJobDeps } from './runner/search-job.js';
import { LocalRateBudget } from './schedule/local-rate-budget.js';
import type { RateBudget } from './schedule/rate-budget.js';
import { createStore, type StoreOptions } from './store/create-store.js';
import type { SearchRecord, Store } from './store/store.js';

export type RedisBackendConfig = Pick<
  Config,
  | 'redisUrl'
  | 'redisPrefix'
  | 'role'
  | 'retentionDays'
  | 'timeoutMs'
  | 'maxRunningSearches'
  | 'maxQueuedSearches'
  | 'queueFullRetryAfterSeconds'
  | 'jobLockMs'
  | 'browserChecksAtOnce'
>;

export interface RedisBackendHooks {
  /** Redis errors (connection lost, and so on); called often during an outage. */
  readonly onError: (error: unknown) => void;
  readonly onSearchStart?: (search: SearchRecord, worker: string) => void;
  /** A worker ran the recovery pass after Redis came back empty. */
  readonly onRecovered?: (requeued: number, worker: string) => void;
  /** The service's clock (ms epoch). */
  readonly now: () => number;
  /**
   * The store of record (PostgreSQL) when there is one: searches, outcomes, keys and
   * statistics go there, and Redis keeps only the outcome cache, control records and leases.
   */
  readonly records?: StoreOptions;
}

export interface RedisBackend {
  readonly store: Store;
  readonly events: EventHub;
  /** Per-origin request budgets over the cluster; the process's own while Redis is away. */
  readonly rateBudget: RateBudget;
  readonly sharedChecks: SharedChecks;
  /** Browser checks at once over every worker: leases in Redis. */
  readonly browserSlots: BrowserSlots;
  readonly rateLimitStore: FastifyRateLimitStoreCtor;
  /** The search limit's counters, shared by every API process. */
  readonly searchQuota: SearchQuota;
  /** `afterSearch`: what follows a search, called by the worker that ran it (BullMqRunnerOptions). */
  createRunner(deps: SearchJobDeps, afterSearch?: (search: SearchRecord) => Promise<void>): Runner;
  /** Whether Redis answered within `timeoutMs`. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  /** Closes the shared connection; close the store, events and runner first. */
  close(): Promise<void>;
}

export function createRedisBackend(config: RedisBackendConfig, hooks: RedisBackendHooks): RedisBackend {
  const prefix = config.redisPrefix;
  const redis = createRedisClient(config.redisUrl, hooks.onError);
  // Subscriber mode needs a connection of its own; it may queue SUBSCRIBE until Redis is back.
  const subscriber = createRedisClient(config.redisUrl, hooks.onError, { enableOfflineQueue: true });
  const coordination: StoreOptions = {
    kind: 'redis',
    redis,
    prefix,
    retentionMs: config.retentionDays * 86_400_000,
    now: hooks.now,
  };
  const store = createStore(
    hooks.records ? { kind: 'split', records: hooks.records, coordination } : coordination,
  );
  const leaseMs = 2 * config.timeoutMs + 5_000;
  return {
    store,
    events: new RedisEventHub({ publisher: redis, subscriber, prefix, onError: hooks.onError }),
    rateBudget: new FallbackRateBudget({
      primary: new RedisRateBudget({ redis, prefix }),
      fallback: new LocalRateBudget(),
      available: () => redis.status === 'ready',
      onError: hooks.onError,
    }),
    sharedChecks: new RedisSharedChecks({
      redis,
      prefix,
      leaseMs,
      maxWaitMs: leaseMs,
      onError: hooks.onError,
    }),
    browserSlots: new RedisBrowserSlots({
      redis,
      prefix,
      cap: config.browserChecksAtOnce,
      onError: hooks.onError,
    }),
    rateLimitStore: redisRateLimitStore(redis, prefix),
    searchQuota: new RedisSearchQuota(redis, prefix),
    createRunner: (deps, afterSearch) =>
      new BullMqRunner(deps, {
        connection: bullmqOptions(config.redisUrl),
        prefix,
        work: config.role !== 'api',
        concurrency: config.maxRunningSearches,
        maxQueued: config.maxQueuedSearches,
        retryAfterSeconds: config.queueFullRetryAfterSeconds,
        lockMs: config.jobLockMs,
        onError: hooks.onError,
        commands: redis,
        ...(afterSearch ? { afterSearch } : {}),
        ...(hooks.onSearchStart ? { onStart: hooks.onSearchStart } : {}),
        ...(hooks.onRecovered ? { onRecovered: hooks.onRecovered } : {}),
      }),
    waitUntilReady: (timeoutMs) =>
      waitUntilReady(redis, timeoutMs).then(
        () => true,
        () => false,
      ),
    close: () => closeRedis(redis),
  };
}

/** What a process listens on: the setting that names it and its value. */
export interface ListenPort {
  readonly setting: 'port' | 'workerPort';
  readonly port: number;
}

/**
 * The port this process listens on. A cluster worker serves only health, readiness and
 * metrics, on a port of its own, so that it never takes the API's; every other process
 * serves the API on `port`. Pure.
 */
export function listenPort(config: Pick<Config, 'redisUrl' | 'role' | 'port' | 'workerPort'>): ListenPort {
  return config.redisUrl && config.role === 'worker'
    ? { setting: 'workerPort', port: config.workerPort }
    : { setting: 'port', port: config.port };
}

/** Calls `fn` at most once per `everyMs` (errors repeat every reconnect during an outage). */
export function throttled<A extends unknown[]>(
  everyMs: number,
  fn: (...args: A) => void,
): (...args: A) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (...args) => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    fn(...args);
  };
}
