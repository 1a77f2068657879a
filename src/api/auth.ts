/**
 * Who is asking: a professional API key (X-API-Key or Authorization: Bearer)
 * or, without a key, the free tier by client address. An unknown or revoked
 * key is refused (401), never silently downgraded.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserscoutError } from '../errors.js';
import type { Store, Tier } from '../store/store.js';

export interface Caller {
  readonly tier: Tier;
  /** `ip:ADDRESS` or `key:KEYID`: what rate limits count by. */
  readonly client: string;
  readonly keyName?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The presented key, if any. Pure. */
export function presentedKey(headers: FastifyRequest['headers']): string | undefined {
  const header = headers['x-api-key'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value?.trim()) return value.trim();
  const auth = headers.authorization;
  const bearer = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return bearer?.[1];
}

/** Every /api/ answer says which tier served it, so a client can show it (not on a 401). */
export const TIER_HEADER = 'x-userscout-tier';

/**
 * Requests the service makes to itself for a key (a watchlist's searches, via
 * inject): they carry this process's random token and the key's id, and are
 * served as that key, counted against its limits. The token never leaves the process.
 */
export const INTERNAL_TOKEN_HEADER = 'x-userscout-internal';
export const ON_BEHALF_HEADER = 'x-userscout-on-behalf-of';

async function internalCaller(
  request: FastifyRequest,
  store: Store,
  internalToken: string | undefined,
): Promise<Caller | undefined> {
  const token = request.headers[INTERNAL_TOKEN_HEADER];
  if (internalToken === undefined || token === undefined) return undefined;
  const keyId = request.headers[ON_BEHALF_HEADER];
  if (token !== internalToken || typeof keyId !== 'string')
    throw new UserscoutError('unauthorized', 'The internal token is not valid');
  const record = (await store.listApiKeys()).find((k) => k.id === keyId);
  if (!record || record.revokedAt !== undefined)
    throw new UserscoutError('unauthorized', 'The API key is unknown or revoked');
  return { tier: record.tier, client: `key:${record.id}`, keyName: record.name };
}

export function installAuth(app: FastifyInstance, store: Store, internalToken?: string): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request, reply) => {
    const internal = await internalCaller(request, store, internalToken);
    if (internal) {
      request.caller = internal;
      reply.header(TIER_HEADER, internal.tier);
      return;
    }
    const key = request.url.startsWith('/api/') ? presentedKey(request.headers) : undefined;
    if (key === undefined) {
      request.caller = { tier: 'free', client: `ip:${request.ip}` };
      if (request.url.startsWith('/api/')) reply.header(TIER_HEADER, 'free');
      return;
    }
    const record = key.length <= 200 ? await store.findApiKeyByHash(hashApiKey(key)) : undefined;
    if (!record || record.revokedAt !== undefined) {
      throw new UserscoutError(
        'unauthorized',
        'The API key is unknown or revoked; send no key for the free tier',
      );
    }
    request.caller = { tier: record.tier, client: `key:${record.id}`, keyName: record.name };
    reply.header(TIER_HEADER, record.tier);
  });
}
