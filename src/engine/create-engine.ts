/**
 * Builds an Engine from the configuration: reads the CA file, parses the
 * connect-to rules, creates the dispatcher. The only place that does that IO.
 */
import { readFileSync } from 'node:fs';
import type { Catalogue } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import { UserscoutError } from '../errors.js';
import { parseConnectTo } from './connect-to.js';
import { createDispatcher } from './dispatcher.js';
import { Engine } from './engine.js';
import type { RateBudget } from './rate-budget.js';
import type { SharedChecks } from './shared-checks.js';

export type EngineConfig = Pick<
  Config,
  | 'timeoutMs'
  | 'connectTimeoutMs'
  | 'concurrency'
  | 'perHost'
  | 'budgetPerSecond'
  | 'budgetBurst'
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
>;

/** Cluster mode adds `rateBudget` (per-origin request budgets across workers) and `sharedChecks` (identical checks sent once). */
export function createEngine(
  config: EngineConfig,
  catalogue: Catalogue,
  options: { readonly rateBudget?: RateBudget; readonly sharedChecks?: SharedChecks } = {},
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
  const dispatcher = createDispatcher({
    proxy: config.proxy || undefined,
    connectTo: config.connectTo.map(parseConnectTo),
    ca,
    insecure: config.insecureTls,
    refusePrivate: config.refusePrivate,
    connectTimeoutMs: config.connectTimeoutMs,
    connectionsPerOrigin: config.perHost,
    keepAliveTimeoutMs: 10_000,
  });
  return new Engine(
    catalogue,
    {
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      maxRedirects: config.maxRedirects,
      retry: { retries: config.retries, baseDelayMs: config.retryBaseMs, maxDelayMs: config.retryMaxMs },
      userAgent: config.userAgent,
      concurrency: config.concurrency,
      perHost: config.perHost,
      breaker: { threshold: config.breakerTimeouts, cooldownMs: config.breakerCooldownMs },
    },
    {
      dispatcher,
      ...(options.rateBudget
        ? {
            budget: {
              budget: options.rateBudget,
              limit: { perSecond: config.budgetPerSecond, burst: config.budgetBurst },
              maxWaitMs: config.timeoutMs,
            },
          }
        : {}),
      ...(options.sharedChecks ? { sharedChecks: options.sharedChecks } : {}),
    },
  );
}
