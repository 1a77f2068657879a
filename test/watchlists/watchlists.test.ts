/**
 * Watchlists over real HTTP against the real service, which checks platforms
 * on the simulated web: a loopback webhook receiver checks every signature
 * with the watchlist's secret, gets new_hit when a watched name gains an
 * account between two runs and nothing when nothing changed, and gets an
 * event on the third try after two 500s. Runs are asked for with
 * POST /api/watchlists/{id}/run; retries use short backoff settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/catalogue/platform.js';
import type { Io } from '../../src/cli/io.js';
import { createKey } from '../../src/cli/keys.js';
import { watchAdd, watchChanges, watchConnection, watchList, watchRun } from '../../src/cli/watch.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { verifySignature } from '../../src/watchlists/signature.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, type RunningService, startService } from '../support/service.js';
import { eventually, Receiver } from './support.js';

const catalogue = catalogueOf([
  entry('Alpha', { category: 'social' }),
  entry('Bravo', { category: 'social' }),
  entry('Charlie', { category: 'coding' }),
]);
/** `Platform/name` pairs that have an account: what the tests change between runs. */
const accounts = new Set(['Alpha/watchme', 'Alpha/steady']);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: () => [],
  override: (p: Platform, username: string) =>
    accounts.has(`${p.name}/${username}`)
      ? { kind: 'respond', status: 200, body: `<html>${username}</html>` }
      : undefined,
});
const sim = new SimWeb({ routes: emulation.routes });
const receiver = new Receiver();

let s: RunningService;
let key: string;
let keyId: string;
let otherKey: string;

const SETTINGS = {
  webhookAllowPrivate: true,
  watchlistTickMs: 50,
  webhookRetryBaseMs: 50,
  webhookRetryMaxMs: 200,
  webhookTimeoutMs: 2_000,
  // Every run checks again: a cached answer would hide the change between runs.
  cacheHitSeconds: 0,
  cacheMissSeconds: 0,
  cacheOtherSeconds: 0,
};

beforeAll(async () => {
  await sim.start();
  await receiver.start();
  s = await startService(sim, catalogue, SETTINGS);
  ({ key, id: keyId } = await createKey(s.service.store, 'brand team', 'professional'));
  otherKey = (await createKey(s.service.store, 'someone else', 'professional')).key;
}, 60_000);

afterAll(async () => {
  await s?.service.close();
  await receiver.stop();
  await sim.stop();
});

const api = (path: string, init: { method?: string; body?: unknown; key?: string | null } = {}) =>
  json(`${s.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(init.key === null ? {} : { 'x-api-key': init.key ?? key }),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

async function runsDone(id: string, runs: number) {
  return eventually(`run ${runs} of ${id}`, async () => {
    const r = await api(`/api/watchlists/${id}`);
    return r.body.runs >= runs && !r.body.running ? r.body : undefined;
  });
}

describe('watchlists', () => {
  it('refuses a client without a key, with a message that says what to do', async () => {
    for (const [method, path] of [
      ['GET', '/api/watchlists'],
      ['POST', '/api/watchlists'],
      ['GET', '/api/watchlists/any'],
    ] as const) {
      const r = await api(path, {
        method,
        key: null,
        ...(method === 'POST' ? { body: { names: ['a'] } } : {}),
      });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('api_key_required');
      expect(r.body.error).toMatch(/API key/);
    }
  });

  it('sends new_hit, signed, when a watched name gains an account between two runs, and nothing when nothing changed', {
    timeout: 90_000,
  }, async () => {
    const created = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['watchme'], intervalSeconds: 3600, webhookUrl: receiver.url },
    });
    expect(created.status).toBe(201);
    const { id, webhookSecret } = created.body;
    expect(webhookSecret).toMatch(/^whsec_/);
    // The secret is answered once: never again.
    expect((await api(`/api/watchlists/${id}`)).body.webhookSecret).toBeUndefined();

    // The first run sets the baseline: no change, so no event.
    const first = await runsDone(id, 1);
    expect(first.lastRun.changes).toBe(0);
    expect(Object.keys(first.lastRun.searches)).toEqual(['watchme']);
    // Its search is an ordinary search of the key.
    const search = await api(`/api/search?id=${first.lastRun.searches.watchme}&include=all`);
    expect(
      search.body.results.map((r: { platform: string; status: string }) => [r.platform, r.status]),
    ).toEqual([
      ['Alpha', 'hit'],
      ['Bravo', 'miss'],
      ['Charlie', 'miss'],
    ]);
    expect((await api(`/api/watchlists/${id}/deliveries`)).body.deliveries).toEqual([]);
    // Private to the key: another key cannot read it.
    const other = await api(`/api/search?id=${first.lastRun.searches.watchme}`, { key: otherKey });
    expect(other.status).toBe(404);

    accounts.add('Bravo/watchme');
    expect((await api(`/api/watchlists/${id}/run`, { method: 'POST' })).status).toBe(202);
    const second = await runsDone(id, 2);
    expect(second.lastRun.changes).toBe(1);
    const got = await eventually('the webhook', () =>
      receiver.received.length > 0 ? receiver.received : undefined,
    );
    expect(got).toHaveLength(1);
    const [event] = got;
    const signature = String(event!.headers['x-userscout-signature']);
    expect(verifySignature(webhookSecret, signature, event!.body, Math.floor(Date.now() / 1000))).toBe(true);
    expect(
      verifySignature('whsec_not_the_secret_at_all', signature, event!.body, Math.floor(Date.now() / 1000)),
    ).toBe(false);
    const body = JSON.parse(event!.body);
    expect(body).toMatchObject({
      type: 'watchlist.changes',
      watchlist: { id, names: ['watchme'] },
      run: { id: second.lastRun.id },
      changes: [{ username: 'watchme', platform: 'Bravo', kind: 'new_hit', from: 'miss', to: 'hit' }],
    });
    expect(event!.headers['x-userscout-event-id']).toBe(body.id);

    const changes = (await api(`/api/watchlists/${id}/changes`)).body.changes;
    expect(changes).toMatchObject([{ seq: 1, username: 'watchme', platform: 'Bravo', kind: 'new_hit' }]);
    const deliveries = await eventually('the delivery logged', async () => {
      const d = (await api(`/api/watchlists/${id}/deliveries`)).body.deliveries;
      return d[0]?.state === 'delivered' ? d : undefined;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventId: body.id, attempts: [{ status: 200 }] });

    // Nothing changed: the run is recorded, no change and no delivery.
    await api(`/api/watchlists/${id}/run`, { method: 'POST' });
    const third = await runsDone(id, 3);
    expect(third.lastRun.changes).toBe(0);
    expect((await api(`/api/watchlists/${id}/deliveries`)).body.deliveries).toHaveLength(1);
    expect((await api(`/api/watchlists/${id}/changes`)).body.changes).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);

    // A hit that became a miss is gone.
    accounts.delete('Bravo/watchme');
    await api(`/api/watchlists/${id}/run`, { method: 'POST' });
    await runsDone(id, 4);
    const after = (await api(`/api/watchlists/${id}/changes?after=1`)).body.changes;
    expect(after).toMatchObject([{ seq: 2, platform: 'Bravo', kind: 'gone', from: 'hit', to: 'miss' }]);
  });

  it('delivers on the third try to a receiver that answers 500 twice, and redelivers on request', {
    timeout: 90_000,
  }, async () => {
    receiver.received.length = 0;
    receiver.statuses.push(500, 500);
    const created = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['steady'], intervalSeconds: 3600, webhookUrl: receiver.url, notify: 'every_run' },
    });
    const { id, webhookSecret } = created.body;
    const delivered = await eventually('the delivery on the third try', async () => {
      const d = (await api(`/api/watchlists/${id}/deliveries`)).body.deliveries;
      return d[0]?.state === 'delivered' ? d[0] : undefined;
    });
    expect(delivered.eventType).toBe('watchlist.run');
    expect(delivered.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    expect(receiver.received).toHaveLength(3);
    const ids = receiver.received.map((r) => JSON.parse(r.body).id);
    expect(new Set(ids)).toEqual(new Set([delivered.eventId]));
    for (const r of receiver.received) {
      const header = String(r.headers['x-userscout-signature']);
      expect(verifySignature(webhookSecret, header, r.body, Math.floor(Date.now() / 1000))).toBe(true);
    }

    const again = await api(`/api/watchlists/${id}/deliveries/${delivered.id}/redeliver`, { method: 'POST' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      eventId: delivered.eventId,
      redeliveryOf: delivered.id,
      state: 'pending',
    });
    await eventually('the redelivery', () => (receiver.received.length === 4 ? true : undefined));
    expect(JSON.parse(receiver.received[3]!.body).id).toBe(delivered.eventId);
  });

  it('with variants, also watches the lookalike names, one search each, and tells new_hit on a lookalike', {
    timeout: 90_000,
  }, async () => {
    const created = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['brandco'], variants: true, intervalSeconds: 3600, webhookUrl: receiver.url },
    });
    expect(created.status).toBe(201);
    const { id, watchedNames } = created.body as { id: string; watchedNames: string[] };
    expect(created.body.variants).toBe(true);
    expect(watchedNames[0]).toBe('brandco');
    expect(watchedNames.length).toBeGreaterThan(1);
    const first = await runsDone(id, 1);
    expect(Object.keys(first.lastRun.searches).sort()).toEqual([...watchedNames].sort());

    // Someone registers a lookalike: the next run tells it apart from the watched name.
    const lookalike = watchedNames[1]!;
    accounts.add(`Bravo/${lookalike}`);
    try {
      await api(`/api/watchlists/${id}/run`, { method: 'POST' });
      await runsDone(id, 2);
      const changes = (await api(`/api/watchlists/${id}/changes`)).body.changes as {
        kind: string;
        username?: string;
        name?: string;
        platformId: string;
      }[];
      expect(changes).toEqual([expect.objectContaining({ kind: 'new_hit', platformId: 'bravo' })]);
      expect(JSON.stringify(changes[0])).toContain(lookalike);
    } finally {
      accounts.delete(`Bravo/${lookalike}`);
    }
    // Off again with PATCH: only the name itself.
    const patched = await api(`/api/watchlists/${id}`, { method: 'PATCH', body: { variants: false } });
    expect(patched.body.watchedNames).toBeUndefined();
  });

  it("runs a free key's watchlist with ordinary searches, since its tier cannot start private ones", {
    timeout: 90_000,
  }, async () => {
    const free = (await createKey(s.service.store, 'free team', 'free')).key;
    const created = await api('/api/watchlists', {
      method: 'POST',
      key: free,
      body: { names: ['freewatch'] },
    });
    expect(created.status).toBe(201);
    const run = await eventually('the run', async () => {
      const r = await api(`/api/watchlists/${created.body.id}`, { key: free });
      return r.body.runs >= 1 ? r.body.lastRun : undefined;
    });
    expect(run.skipped).toEqual({});
    // Not private: readable without the key.
    const search = await api(`/api/search?id=${run.searches.freewatch}`, { key: null });
    expect(search.status).toBe(200);
    expect(search.body.username).toBe('freewatch');
  });

  it('shows each key only its own watchlists', async () => {
    const mine = (await api('/api/watchlists')).body.watchlists;
    expect(mine.length).toBeGreaterThan(0);
    const theirs = await api('/api/watchlists', { key: otherKey });
    expect(theirs.body.watchlists).toEqual([]);
    for (const path of ['', '/changes', '/deliveries']) {
      const r = await api(`/api/watchlists/${mine[0].id}${path}`, { key: otherKey });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('watchlist_not_found');
    }
    const del = await api(`/api/watchlists/${mine[0].id}`, { method: 'DELETE', key: otherKey });
    expect(del.status).toBe(404);
  });

  it('checks what a watchlist holds against the settings, and changes it with PATCH', async () => {
    const short = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['a'], intervalSeconds: 60 },
    });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatch(/at least 3600/);
    const bad = await api('/api/watchlists', { method: 'POST', body: { names: ['a b'] } });
    expect(bad.body.code).toBe('invalid_username');
    const ftp = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['a'], webhookUrl: 'ftp://x.test/' },
    });
    expect(ftp.body.code).toBe('webhook_url_refused');

    const created = await api('/api/watchlists', {
      method: 'POST',
      body: { names: ['patchme'], intervalSeconds: 7200, categories: ['coding'] },
    });
    expect(created.body).toMatchObject({
      names: ['patchme'],
      intervalSeconds: 7200,
      categories: ['coding'],
      notify: 'changes',
    });
    const patched = await api(`/api/watchlists/${created.body.id}`, {
      method: 'PATCH',
      body: { names: ['patchme', 'other'], categories: null, rotateSecret: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.names).toEqual(['patchme', 'other']);
    expect(patched.body.categories).toBeUndefined();
    expect(patched.body.webhookSecret).toMatch(/^whsec_/);
    expect(patched.body.webhookSecret).not.toBe(created.body.webhookSecret);
    expect((await api(`/api/watchlists/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/api/watchlists/${created.body.id}`)).status).toBe(404);
  });
});

describe('no way in but a key', () => {
  // Watchlists once started their searches as requests to the service itself, with a
  // per-process token in these headers and the key's id; they start them in process now.
  const once = { 'x-userscout-internal': 'a'.repeat(64), 'x-userscout-on-behalf-of': '' };

  it("grants nothing to a request carrying the headers of the service's old calls to itself", async () => {
    const headers = { ...once, 'x-userscout-on-behalf-of': keyId };
    const started = await json(`${s.url}/api/search`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'outsider' }),
    });
    // Served as any client without a key: the free tier, counted by address.
    expect(started.status).toBe(200);
    expect(started.headers.get('x-userscout-tier')).toBe('free');
    expect(started.headers.get('ratelimit-limit')).toBe(String(s.config.freeLimit));
    const asKey = await json(`${s.url}/api/search`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'outsider', private: true }),
    });
    expect(asKey.status).toBe(403);
    expect(asKey.body.code).toBe('private_not_allowed');
    const lists = await json(`${s.url}/api/watchlists`, { headers });
    expect(lists.status).toBe(401);
    expect(lists.body.code).toBe('api_key_required');
  });
});

describe('userscout watch', () => {
  it('adds, lists, runs and shows the changes of a watchlist through the API', {
    timeout: 90_000,
  }, async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      out: (t) => out.push(t),
      write: (t) => out.push(t),
      err: (t) => err.push(t),
      stderr: process.stderr,
    };
    const target = watchConnection({}, { server: s.url, apiKey: key });
    await watchAdd(target, ['clitest'], { interval: '2h', platform: ['Alpha', 'Charlie'] }, io);
    const id = out.pop()!;
    expect(err.join('\n')).toMatch(/webhook secret \(shown only now\): whsec_/);
    await runsDone(id, 1);
    await watchList(target, 'table', io);
    expect(out.pop()).toMatch(new RegExp(`${id}\tclitest\t7200s\t`));
    accounts.add('Charlie/clitest');
    await watchRun(target, id, io);
    expect(err.pop()).toBe(`watchlist ${id} runs now`);
    await runsDone(id, 2);
    await watchChanges(target, id, { format: 'json' }, io);
    expect(JSON.parse(out.pop()!)).toMatchObject([
      { seq: 1, kind: 'new_hit', platform: 'Charlie', username: 'clitest' },
    ]);
    await expect(watchRun({ ...target, apiKey: 'usk_wrong' }, id, io)).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('watchlists and the search limit', () => {
  it("counts each name's search against the key's limit, and skips the names past it", {
    timeout: 90_000,
  }, async () => {
    const limited = await startService(sim, catalogue, { ...SETTINGS, proLimit: 1 });
    try {
      const k = (await createKey(limited.service.store, 'small', 'professional')).key;
      const created = await json(`${limited.url}/api/watchlists`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': k },
        body: JSON.stringify({ names: ['one', 'two'] }),
      });
      const run = await eventually('the run', async () => {
        const r = await json(`${limited.url}/api/watchlists/${created.body.id}`, {
          headers: { 'x-api-key': k },
        });
        return r.body.runs >= 1 ? r.body.lastRun : undefined;
      });
      expect(Object.keys(run.searches)).toEqual(['one']);
      expect(run.skipped.two).toMatch(/^rate_limited: Search limit reached/);
      // The key's own next search meets the same limit.
      const own = await json(`${limited.url}/api/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': k },
        body: JSON.stringify({ username: 'three' }),
      });
      expect(own.status).toBe(429);
    } finally {
      await limited.service.close();
    }
  });
});
