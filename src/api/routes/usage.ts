/**
 * GET /api/usage: the caller's tier, its two limits, what is used of each and
 * when each window ends. Read without counting anything but this request.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { REQUEST_WINDOW_MS } from '../rate-limits.js';
import { errorResponses, UsageResponse } from '../schemas.js';
import { quotaKey, searchLimitOf } from '../search-quota.js';

export async function usageRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/api/usage',
    {
      schema: {
        tags: ['search'],
        summary: 'What is left of the limits',
        operationId: 'getUsage',
        description:
          "The caller's tier (free without a key), its search limit and its request limit: each with the limit, what is used in the current window, what remains, the window's length in seconds and when it ends (null when no window is open). Counts as one request, not as a search.",
        response: { 200: UsageResponse, 401: { $ref: 'Error#' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const now = deps.now();
      const { tier, client } = request.caller;
      const { limit, windowMs } = searchLimitOf(tier, deps.config);
      const window = await deps.searchQuota.peek(quotaKey(client));
      // This request has just been counted against the request limit; its headers hold the result.
      const requestLimit = tier === 'professional' ? deps.config.proReadLimit : deps.config.readLimit;
      const remaining = Number(reply.getHeader('ratelimit-remaining') ?? requestLimit);
      const resetSeconds = Number(reply.getHeader('ratelimit-reset') ?? 0);
      return {
        tier,
        searches: {
          limit,
          used: window.used,
          remaining: Math.max(0, limit - window.used),
          windowSeconds: Math.round(windowMs / 1000),
          resetsAt: window.resetMs > 0 ? new Date(now + window.resetMs).toISOString() : null,
        },
        requests: {
          limit: requestLimit,
          used: requestLimit - remaining,
          remaining,
          windowSeconds: REQUEST_WINDOW_MS / 1000,
          resetsAt: resetSeconds > 0 ? new Date(now + resetSeconds * 1000).toISOString() : null,
        },
      };
    },
  );
}
