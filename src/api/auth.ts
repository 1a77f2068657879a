/**
 * Who is asking: a professional API key (X-API-Key or Authorization: Bearer)
 * or, without a key, the free tier by client address. An unknown or revoked
 * key is refused (401), never silently downgraded.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserscoutError } from '../errors.js';
import type { ApiKeyRecord, KeyStore } from '../store/roles/key-store.js';
import type { Tier } from '../store/roles/search-store.js';
import { clientKey } from './client-key.js';

export interface Caller {
  readonly tier: Tier;
  /** `ip:ADDRESS` (an IPv6 client's prefix: client-key.ts) or `key:KEYID`: what rate limits count by. */
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
function presentedKey(headers: FastifyRequest['headers']): string | undefined {
  const header = headers['x-api-key'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value?.trim()) return value.trim();
  const auth = headers.authorization;
  const bearer = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return bearer?.[1];
}

/** Every /api/ answer says which tier served it, so a client can show it (not on a 401). */
export const TIER_HEADER = 'x-userscout-tier';

/** The caller a key stands for: its tier, counted as `key:KEYID`. */
function keyCaller(record: ApiKeyRecord): Caller {
  return { tier: record.tier, client: `key:${record.id}`, keyName: record.name };
}

/**
 * The caller a watchlist's owner (`key:KEYID`) stands for while the key is
 * valid (a watchlist's searches are the key's, counted against its limits);
 * undefined once it is revoked or gone.
 */
export async function ownerCaller(store: KeyStore, owner: string): Promise<Caller | undefined> {
  const id = owner.startsWith('key:') ? owner.slice('key:'.length) : undefined;
  const record = id === undefined ? undefined : (await store.listApiKeys()).find((k) => k.id === id);
  return record && record.revokedAt === undefined ? keyCaller(record) : undefined;
}

export function installAuth(app: FastifyInstance, store: KeyStore, ipv6Prefix: number): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request, reply) => {
    const key = request.url.startsWith('/api/') ? presentedKey(request.headers) : undefined;
    if (key === undefined) {
      request.caller = { tier: 'free', client: clientKey(request.ip, ipv6Prefix) };
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
    request.caller = keyCaller(record);
    reply.header(TIER_HEADER, record.tier);
  });
}
