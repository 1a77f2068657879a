/**
 * Builds an Engine from the configuration: reads the CA file, parses the
 * connect-to rules, creates one dispatcher per egress identity. The only place
 * that does that IO.
 */
import { readFileSync } from 'node:fs';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import { type Config, egressIdentities, RETRY_ON } from '../config.js';
import { UserscoutError } from '../errors.js';
import { type LearnedLimitShelf, SiteLimitBook } from '../schedule/site-limit-book.js';
import { browserRefusal } from '../transport/browser.js';
import { TransportSet } from '../transport/transport-set.js';
import { parseConnectTo } from './connect-to.js';
import type { ControlRecord } from './control.js';
import { ControlGuard } from './control-guard.js';
import { type ControlLedger, MemoryControlLedger } from './control-ledger.js';
import { createDispatcher } from './dispatcher.js';
import { type EgressRoute, Engine } from './engine.js';
import { DEFAULT_IDENTITY } from './limiter.js';
import type { RateBudget } from './rate-budget.js';
import type { SharedChecks } from './shared-checks.js';

export type EngineConfig = Pick<
  Config,
  | 'timeoutMs'
  | 'connectTimeoutMs'
  | 'connectsAtOnce'
  | 'concurrency'
  | 'perHost'
  | 'budgetPerSecond'
  | 'budgetBurst'
  | 'egress'
  | 'http2'
  | 'keepIdleConnections'
  | 'idleConnectionsPerOrigin'
  | 'keepAliveMaxMs'
  | 'bodyCapBytes'
  | 'retries'
  | 'retryBaseMs'
  | 'retryMaxMs'
  | 'maxRedirects'
  | 'breakerTimeouts'
  | 'breakerCooldownMs'
  | 'userAgent'
  | 'proxy'
  | 'connectTo'
  | 'caFile'
  | 'insecureTls'
  | 'refusePrivate'
  | 'controlWindowMs'
  | 'siteLimitFloor'
  | 'siteLimitRecovery'
  | 'siteLimitTtlMs'
  | 'escalations'
  | 'browserPath'
  | 'browserContexts'
>;

/**
 * Cluster mode adds `rateBudget` (budgets shared by the workers, in Redis;
 * default: this process's own) and `sharedChecks` (identical checks sent once).
 */
export function createEngine(
  config: EngineConfig,
  catalogue: Catalogue,
  options: {
    readonly rateBudget?: RateBudget;
    readonly sharedChecks?: SharedChecks;
    /** Where control records are kept (the store); default: this process's memory. */
    readonly controls?: ControlLedger;
    /** Called with every control record this engine writes. */
    readonly onControl?: (record: ControlRecord) => void;
    /**
     * Which platforms' due controls go out alongside their checks. Default: every
     * platform's when the records are shared (`controls` given: the service), none otherwise.
     */
    readonly eagerControls?: (platform: Platform) => boolean;
    /** Where learned site limits are kept (the store's `siteLimits`); default: this process's memory. */
    readonly siteLimits?: LearnedLimitShelf;
    /** Told when the learned limits' shelf cannot be read or written. */
    readonly onSiteLimitsError?: (error: unknown) => void;
  } = {},
): Engine {
  let ca: string[] = [];
  if (config.caFile) {
    try {
      ca = [readFileSync(config.caFile, 'utf8')];
    } catch (error) {
      throw new UserscoutError(
        'invalid_argument',
        `CA file ${config.caFile} cannot be read: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  const network = {
    connectTo: config.connectTo.map(parseConnectTo),
    ca,
    insecure: config.insecureTls,
    refusePrivate: config.refusePrivate,
    connectTimeoutMs: config.connectTimeoutMs,
    connectsAtOnce: config.connectsAtOnce || undefined,
    connectionsPerOrigin: config.perHost,
    keepAliveTimeoutMs: 10_000,
    keepAliveMaxMs: config.keepAliveMaxMs,
    idleConnectionsPerOrigin: config.idleConnectionsPerOrigin,
    allowH2: config.http2,
  };
  const identities = egressIdentities(config.egress);
  const egress: EgressRoute[] = identities.length
    ? identities.map((identity) => ({
        name: identity.name,
        dispatcher: createDispatcher({
          ...network,
          ...(identity.kind === 'addr' ? { localAddress: identity.address } : { proxy: identity.url }),
        }),
      }))
    : [
        {
          name: DEFAULT_IDENTITY,
          dispatcher: createDispatcher({ ...network, proxy: config.proxy || undefined }),
        },
      ];
  // A platform that goes by browser needs settings the browser can honour; refused here rather than leak.
  if (catalogue.platforms.some((p) => p.enabled && p.transport === 'browser')) {
    const refusal = browserRefusal({ ca, insecure: config.insecureTls });
    if (refusal) throw refusal;
  }
  // Started only when a check needs them: gateways, impit clients, the browser.
  const transports = new TransportSet({
    connectTo: network.connectTo,
    ca,
    insecure: config.insecureTls,
    refusePrivate: config.refusePrivate,
    connectTimeoutMs: config.connectTimeoutMs,
    maxRedirects: config.maxRedirects,
    identities: identities.map((identity) =>
      identity.kind === 'addr' ? { localAddress: identity.address } : { proxy: identity.url },
    ),
    ...(identities.length ? {} : { identities: [{ proxy: config.proxy || undefined }] }),
    browserPath: config.browserPath,
    browserContexts: config.browserContexts,
  });
  return new Engine(
    catalogue,
    {
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      maxRedirects: config.maxRedirects,
      retry: {
        retries: config.retries,
        baseDelayMs: config.retryBaseMs,
        maxDelayMs: config.retryMaxMs,
        on: RETRY_ON,
      },
      userAgent: config.userAgent,
      concurrency: config.concurrency,
      keepIdleConnections: config.keepIdleConnections,
      escalationsPerSearch: config.escalations,
      perHost: config.perHost,
      budget: { perSecond: config.budgetPerSecond, burst: config.budgetBurst },
      breaker: { threshold: config.breakerTimeouts, cooldownMs: config.breakerCooldownMs },
    },
    {
      egress,
      transports,
      ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}),
      ...(options.sharedChecks ? { sharedChecks: options.sharedChecks } : {}),
      ...(config.siteLimitTtlMs > 0
        ? {
            siteLimits: new SiteLimitBook({
              settings: {
                floor: config.siteLimitFloor,
                recoveryPerMinute: config.siteLimitRecovery,
                ttlMs: config.siteLimitTtlMs,
              },
              ...(options.siteLimits ? { shelf: options.siteLimits } : {}),
              ...(options.onSiteLimitsError ? { onError: options.onSiteLimitsError } : {}),
            }),
          }
        : {}),
      ...(config.controlWindowMs > 0
        ? {
            controls: new ControlGuard({
              ledger: options.controls ?? new MemoryControlLedger(),
              // Shared records (the service): sent alongside the first check of each window.
              eager: options.eagerControls ?? options.controls !== undefined,
              windowMs: config.controlWindowMs,
              waitMs: 2 * config.timeoutMs,
              clock: Date.now,
              random: Math.random,
              ...(options.onControl ? { onControl: options.onControl } : {}),
            }),
          }
        : {}),
    },
  );
}
