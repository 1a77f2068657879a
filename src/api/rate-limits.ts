/**
 * Two limits, both with the standard RateLimit-* headers on every response:
 * starting searches counts against the tier's search limit (free: per client
 * address, professional: per key; src/api/search-quota.ts, since a batch takes
 * several at once); everything else counts against a generous request limit of
 * the tier, here, so a client following its own searches at one poll a second
 * never runs into 429.
 */
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { UserscoutError } from '../errors.js';
import { clientKey } from './client-key.js';

export type RateLimitConfig = Pick<
  Config,
  'freeLimit' | 'freeWindowMs' | 'proLimit' | 'proWindowMs' | 'readLimit' | 'proReadLimit' | 'ipv6Prefix'
>;

/** The request limit's window (ms): other requests are counted per minute. */
export const REQUEST_WINDOW_MS = 60_000;

export async function installRateLimits(
  app: FastifyInstance,
  config: RateLimitConfig,
  /** Shared counters (cluster mode: src/api/rate-limit-redis.ts); in memory when absent. */
  store?: RateLimitPluginOptions['store'],
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    // Right after authentication (a refused key does not use up the limit), before body
    // parsing and validation: a refused request is the cheapest answer the server gives.
    hook: 'onRequest',
    enableDraftSpec: true,
    // Per tier: a professional key follows many searches at once (50 polled once a second is 3,000 a minute).
    max: async (request: FastifyRequest) =>
      request.caller?.tier === 'professional' ? config.proReadLimit : config.readLimit,
    timeWindow: REQUEST_WINDOW_MS,
    keyGenerator: (request: FastifyRequest) =>
      `read:${request.caller?.client ?? clientKey(request.ip, config.ipv6Prefix)}`,
    // Shared counters can be out of reach (Redis down): other requests then go uncounted and
    // meet the same outage in their handler; starting a search is refused (skipOnError below).
    ...(store ? { store, skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
      return new UserscoutError(
        'rate_limited',
        `Too many requests: ${context.max} per minute. Retry in ${context.after}.`,
        {
          details: { retryAfter, limit: context.max },
        },
      );
    },
  });
}
