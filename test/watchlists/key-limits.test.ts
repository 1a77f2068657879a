/**
 * What one API key may hold, through the API: watchlists and names per key
 * (409 watchlist_limit), redeliveries per hour (429 rate_limited, with
 * retryAfter), stored deliveries (409 delivery_limit once all are pending);
 * and a revoked key's watchlists stop and its pending deliveries are cancelled.
 * Drives the API by inject (test/support/in-memory-api.ts); the webhooks still go over loopback.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, revokeKey } from '../../src/cli/keys.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import type { DeliveryRecord } from '../../src/store/watchlists.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { injectService, json, type RunningService } from '../support/service.js';
import { Receiver } from './support.js';

const catalogue = catalogueOf([entry('Alpha')]);
const sim = new SimWeb({ routes: emulateCatalogue(catalogue.platforms, catalogue.shields).routes });
const receiver = new Receiver();
let s: RunningService;

beforeAll(async () => {
  await sim.start();
  await receiver.start();
  s = await injectService(sim, catalogue, {
    webhookAllowPrivate: true,
    watchlistTickMs: 50,
    watchlistMaxPerKey: 2,
    watchlistMaxNamesPerKey: 3,
    webhookRedeliverLimit: 2,
    webhookMaxStoredPerKey: 10,
  });
}, 60_000);

afterAll(async () => {
  await s?.service.close();
  await receiver.stop();
  await sim.stop();
});

const api = (key: string, path: string, method = 'GET', body?: unknown) =>
  json(`${s.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A delivery of `watchlistId` straight into the store: pending (not due for a day) or ended. */
function delivery(watchlistId: string, state: 'pending' | 'delivered'): DeliveryRecord {
  const now = Date.now();
  return {
    id: randomUUID(),
    watchlistId,
    eventId: `evt_${randomUUID()}`,
    eventType: 'watchlist.changes',
    body: '{}',
    url: receiver.url,
    state,
    createdAt: now,
    attempts: [],
    ...(state === 'pending' ? { nextAttemptAt: now + 86_400_000 } : { deliveredAt: now }),
  };
}

describe('limits per API key', () => {
  it('refuses a watchlist past the count per key, and names past the total per key', async () => {
    const { key } = await createKey(s.service.store, 'limits', 'professional');
    const first = await api(key, '/api/watchlists', 'POST', { names: ['ann', 'bea'] });
    expect(first.status).toBe(201);
    const tooMany = await api(key, '/api/watchlists', 'POST', { names: ['cal', 'dee'] });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toMatchObject({ code: 'watchlist_limit' });
    expect(tooMany.body.error).toMatch(/at most 3 names.*USERSCOUT_WATCHLIST_MAX_NAMES_PER_KEY/);
    expect((await api(key, '/api/watchlists', 'POST', { names: ['cal'] })).status).toBe(201);
    const third = await api(key, '/api/watchlists', 'POST', { names: ['eve'] });
    expect(third.status).toBe(409);
    expect(third.body.error).toMatch(/at most 2 watchlists.*USERSCOUT_WATCHLIST_MAX_PER_KEY/);
    // A change is checked against the key's other watchlists, not against itself.
    expect(
      (await api(key, `/api/watchlists/${first.body.id}`, 'PATCH', { names: ['ann', 'zed'] })).status,
    ).toBe(200);
    const grown = await api(key, `/api/watchlists/${first.body.id}`, 'PATCH', {
      names: ['ann', 'bea', 'zed'],
    });
    expect(grown.status).toBe(409);
    expect(grown.body.code).toBe('watchlist_limit');
  });

  it('holds the count per key when many creates arrive at once, over a store with latency', async () => {
    const { key } = await createKey(s.service.store, 'at-once', 'professional');
    const store = s.service.store.watchlists;
    // As over the network (Redis, PostgreSQL): each read of a key's watchlists takes a while.
    const list = store.listWatchlists.bind(store);
    const slowList = vi.spyOn(store, 'listWatchlists').mockImplementation(async (owner) => {
      const found = await list(owner);
      await new Promise((r) => setTimeout(r, 30));
      return found;
    });
    const answers = await Promise.all(
      ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((name) =>
        api(key, '/api/watchlists', 'POST', { names: [name] }),
      ),
    ).finally(() => slowList.mockRestore());
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(4);
    expect((await api(key, '/api/watchlists')).body.watchlists).toHaveLength(2);
  });

  it('counts redeliveries per key (429), and refuses one while every stored delivery is pending (409)', async () => {
    const { key } = await createKey(s.service.store, 'redeliver', 'professional');
    const created = await api(key, '/api/watchlists', 'POST', { names: ['fay'], webhookUrl: receiver.url });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const store = s.service.store.watchlists;
    const original = delivery(id, 'delivered');
    await store.createDelivery(original);
    const redeliver = () => api(key, `/api/watchlists/${id}/deliveries/${original.id}/redeliver`, 'POST');
    expect((await redeliver()).status).toBe(202);
    expect((await redeliver()).status).toBe(202);
    const limited = await redeliver();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited', retryAfter: expect.any(Number) });
    expect(limited.body.error).toMatch(/Redelivery limit reached: 2 per hour/);

    // Another key's limit is its own; its stored deliveries fill up with pending ones.
    const other = await createKey(s.service.store, 'full', 'professional');
    const theirs = await api(other.key, '/api/watchlists', 'POST', {
      names: ['gus'],
      webhookUrl: receiver.url,
    });
    const theirId = theirs.body.id as string;
    const ended = delivery(theirId, 'delivered');
    await store.createDelivery(ended);
    for (let i = 0; i < 9; i++) await store.createDelivery(delivery(theirId, 'pending'));
    const full = await api(other.key, `/api/watchlists/${theirId}/deliveries/${ended.id}/redeliver`, 'POST');
    // The ended one made room: ten stored, nine of them pending.
    expect(full.status).toBe(202);
    expect(await store.getDelivery(ended.id)).toBeUndefined();
    const refused = await api(
      other.key,
      `/api/watchlists/${theirId}/deliveries/${full.body.id}/redeliver`,
      'POST',
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('delivery_limit');
  });

  it("stops a revoked key's watchlists and cancels its pending deliveries", async () => {
    const { key, id: keyId } = await createKey(s.service.store, 'revoked', 'professional');
    const created = await api(key, '/api/watchlists', 'POST', { names: ['hal'], webhookUrl: receiver.url });
    const store = s.service.store.watchlists;
    const pending = delivery(created.body.id, 'pending');
    await store.createDelivery(pending);
    await revokeKey(s.service.store, keyId);
    const cancelled = await store.getDelivery(pending.id);
    expect(cancelled?.state).toBe('cancelled');
    expect(cancelled?.nextAttemptAt).toBeUndefined();
    // Asking for a run is refused to a revoked key, and its watchlist is due never again.
    expect((await api(key, `/api/watchlists/${created.body.id}/run`, 'POST')).status).toBe(401);
    expect(await store.stopOwner(`key:${keyId}`)).toEqual({ watchlists: 0, deliveries: 0 });
  });
});
