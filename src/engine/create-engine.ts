/**
 * Builds an Engine from the configuration: reads the CA file, parses the
 * connect-to rules, creates one dispatcher per egress identity. The only place
 * that does that IO.
 */
import { readFileSync } from 'node:fs';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import { type Config, egressIdentities, RETRY_ON } from '../config.js';
import { UserscoutError } from '../errors.js';
import type { LimitSource } from '../schedule/limits.js';
import { LocalRateBudget } from '../schedule/local-rate-budget.js';
import type { RateBudget } from '../schedule/rate-budget.js';
import { DEFAULT_IDENTITY } from '../schedule/scheduler.js';
import { type LearnedLimitShelf, SiteLimitBook } from '../schedule/site-limit-book.js';
import { BROWSER_CLOSE_MS } from '../tuning.js';
import { browserSiteBudget } from './browser-site-budget.js';
import type { ControlRecord } from './controls/control.js';
import { ControlGuard } from './controls/control-guard.js';
import { type ControlLedger, MemoryControlLedger } from './controls/control-ledger.js';
import { type EgressRoute, Engine } from './engine.js';
import type { SharedChecks } from './shared-checks.js';
import { browserStartNotice } from './transport/browser.js';
import type { BrowserDirectory } from './transport/browser-directory.js';
import { type BrowserSlots, browserChecksAtOnce, UNBOUNDED_SLOTS } from './transport/browser-slots.js';
import { parseConnectTo } from './transport/connect-to.js';
import { createDispatcher } from './transport/dispatcher.js';
import { TransportSet } from './transport/transport-set.js';
import { TransportTally } from './transport/transport-tally.js';
import { TransportBook, type TransportShelf } from './transport-book.js';
import { type SessionSource, Sessions } from './verdict/session.js';

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
  | 'sessionsFile'
  | 'sessions'
  | 'insecureTls'
  | 'refusePrivate'
  | 'controlWindowMs'
  | 'siteLimitFloor'
  | 'siteLimitRecovery'
  | 'siteLimitTtlMs'
  | 'escalations'
  | 'transportMemoryTtlMs'
  | 'browserPath'
  | 'browserContexts'
  | 'browsers'
  | 'browserChecksAtOnce'
  | 'browserChecksPerSiteMinute'
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
    /** The budget of each site and identity (limits learned from the sites); default: the catalogue's. */
    readonly limits?: LimitSource;
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
    /** Where the transports sites needed are kept (the store's `transportMemory`); default: this process's memory. */
    readonly transportMemory?: TransportShelf;
    /** Told when the remembered transports' shelf cannot be read or written. */
    readonly onTransportMemoryError?: (error: unknown) => void;
    /** Where the process counts what its transports cost (shared with its other search threads); default: the engine's own. */
    readonly tally?: TransportTally;
    /** The cluster's browser slots (Redis); default: none beyond the process's own cap. */
    readonly browserSlots?: BrowserSlots;
    /** The browsers the process's search threads share (browser-directory.ts); default: the engine's own. */
    readonly browserDirectory?: BrowserDirectory;
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
  const sessions = loadSessions(config, catalogue);
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
  const tally = options.tally ?? new TransportTally();
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
    // Alone, the cluster's cap is the process's: the smaller of the two holds.
    browserContexts: options.browserSlots ? config.browserContexts : browserChecksAtOnce(config, false),
    browsers: config.browsers,
    directory: options.browserDirectory,
    tally,
    clusterSlots: options.browserSlots ?? UNBOUNDED_SLOTS,
    clusterCap: config.browserChecksAtOnce,
    // A check's read, then its tab's wipe and, failing that, its close: each close-bound.
    holdMs: config.timeoutMs + 2 * BROWSER_CLOSE_MS,
    siteBudget: browserSiteBudget(
      options.rateBudget ?? new LocalRateBudget(),
      config.browserChecksPerSiteMinute,
    ),
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
      tally,
      ...(sessions.size > 0 ? { sessions } : {}),
      ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
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
      // Only escalations teach a site's transport: with them off, every check goes by its platform's.
      ...(config.escalations > 0 && config.transportMemoryTtlMs > 0
        ? {
            transportBook: new TransportBook({
              ttlMs: config.transportMemoryTtlMs,
              ...(options.transportMemory ? { shelf: options.transportMemory } : {}),
              ...(options.onTransportMemoryError ? { onError: options.onTransportMemoryError } : {}),
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

/** What to say at start when these settings keep the browser off for some of `platforms` (transport/browser.ts). */
export function browserNotice(
  config: Pick<Config, 'caFile' | 'insecureTls' | 'escalations'>,
  platforms: readonly Platform[],
): string | undefined {
  return browserStartNotice(
    { caFile: config.caFile, insecure: config.insecureTls, escalations: config.escalations },
    platforms,
  );
}

/**
 * The operator's sessions, from USERSCOUT_SESSIONS_FILE and USERSCOUT_SESSIONS, checked
 * against the catalogue. Errors name the setting and the platform, never a value.
 */
export function loadSessions(
  config: Pick<Config, 'sessionsFile' | 'sessions'>,
  catalogue: Catalogue,
): Sessions {
  const sources: SessionSource[] = [];
  if (config.sessionsFile) {
    const setting = `sessionsFile (USERSCOUT_SESSIONS_FILE) ${config.sessionsFile}`;
    let text: string;
    try {
      text = readFileSync(config.sessionsFile, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new UserscoutError(
        'invalid_config',
        `Setting ${setting}: the file cannot be read (${String(code ?? 'error')})`,
        {
          details: { setting: 'sessionsFile' },
        },
      );
    }
    sources.push({ setting, text });
  }
  if (config.sessions) sources.push({ setting: 'sessions (USERSCOUT_SESSIONS)', text: config.sessions });
  const sessions = Sessions.parse(sources);
  sessions.assertSendable(catalogue.platforms);
  return sessions;
}
