/**
 * The contract of the search routes clients build on, against the real service on the
 * simulated web: batches (POST /api/searches), lookalike names
 * (variants on POST /api/search), a key's own history (GET /api/searches),
 * cancelling (DELETE /api/search/{id}) on the search thread and on the main
 * thread, and GET /api/usage.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/catalogue/platform.js';
import { createKey } from '../../src/cli/keys.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import {
  injectService,
  json,
  pollUntilDone,
  postSearch,
  type RunningService,
  serviceForBlock,
} from '../support/service.js';

// Alpha takes [a-z0-9_] only; Bravo states no rule; Charlie takes letters (any script), dots and
// underscores; Delta answers slowly when a test says so. sam has an account on Alpha and Bravo.
const catalogue = catalogueOf([
  entry('Alpha', {
    username: { pattern: '^[a-z0-9_]+$' },
    known: { claimed: ['alice'], unclaimed: ['nobody_7'] },
  }),
  entry('Bravo'),
  entry('Charlie', {
    category: 'coding',
    username: { pattern: '^[\\p{L}._]+$' },
    known: { claimed: ['alice'], unclaimed: ['nobody_here'] },
  }),
  entry('Delta', { category: 'coding' }),
]);
const ACCOUNTS = new Set(['Alpha', 'Bravo']);
const latency = new Map<string, number>();
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p: Platform) => (ACCOUNTS.has(p.name) ? ['sam', ...p.known.claimed] : p.known.claimed),
  latency: (p) => latency.get(p.name) ?? 0,
});
const sim = new SimWeb({ routes: emulation.routes });

const running: RunningService[] = [];
async function serve(overrides: Parameters<typeof injectService>[2] = {}): Promise<RunningService> {
  const s = await injectService(sim, catalogue, overrides);
  running.push(s);
  return s;
}

beforeAll(async () => {
  await sim.start();
});
afterEach(async () => {
  latency.clear();
  for (const s of running.splice(0)) await s.service.close();
});
afterAll(async () => {
  await sim.stop();
});

function postBatch(url: string, body: unknown, headers: Record<string, string> = {}) {
  return json(`${url}/api/searches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function cancel(url: string, id: string, headers: Record<string, string> = {}) {
  return json(`${url}/api/search/${id}`, { method: 'DELETE', headers });
}

async function usage(url: string, headers: Record<string, string> = {}) {
  const r = await json(`${url}/api/usage`, { headers });
  expect(r.status).toBe(200);
  return r.body;
}

/** Polls until `ready` holds for the search's poll body; bounded. */
async function waitFor(
  url: string,
  id: string,
  ready: (body: { progress: { checked: number } }) => boolean,
  limitMs = 20_000,
) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await json(`${url}/api/search?id=${id}&include=all`);
    if (ready(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`search ${id}: condition not met: ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('POST /api/searches: a batch', () => {
  it('starts one search per name, in the order given, each counted and each finishing', async () => {
    const { url } = await serve();
    const r = await postBatch(url, { usernames: ['sam', 'nobody', 'carol'], platforms: ['Alpha', 'Bravo'] });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-limit')).toBe('10');
    expect(r.headers.get('ratelimit-remaining')).toBe('7');
    expect(r.body.searches.map((s: { username: string }) => s.username)).toEqual(['sam', 'nobody', 'carol']);
    for (const s of r.body.searches) {
      expect(s).toMatchObject({ status: 'running', totalPlatforms: 2, estimatedTime: expect.any(Number) });
    }
    const ids = r.body.searches.map((s: { queryId: string }) => s.queryId);
    expect(new Set(ids).size).toBe(3);
    const sam = await pollUntilDone(url, ids[0]);
    expect(sam.body).toMatchObject({ status: 'completed', username: 'sam' });
    expect(sam.body.results.map((x: { platform: string }) => x.platform).sort()).toEqual(['Alpha', 'Bravo']);
    expect((await pollUntilDone(url, ids[1])).body.results).toEqual([]);
  });

  it('starts all or none: a batch past the limit is a 429 that says how many are left, and costs nothing', async () => {
    const { url } = await serve();
    for (let i = 0; i < 8; i++)
      expect((await postSearch(url, { username: `u${i}`, platforms: ['Alpha'] })).status).toBe(200);
    const refused = await postBatch(url, { usernames: ['a1', 'a2', 'a3'], platforms: ['Alpha'] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'rate_limited',
      details: { remaining: 2, requested: 3, limit: 10 },
    });
    expect(refused.body.error).toMatch(/needs 3; 2 left, none started/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await usage(url)).searches).toMatchObject({ used: 8, remaining: 2 });
    const fits = await postBatch(url, { usernames: ['a1', 'a2'], platforms: ['Alpha'] });
    expect(fits.status).toBe(200);
    expect(fits.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('refuses a bad batch whole, naming the name at fault, without counting it', async () => {
    const { url } = await serve({ maxBatchNames: 3 });
    const tooMany = await postBatch(url, { usernames: ['a', 'b', 'c', 'd'] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/at most 3 \(setting maxBatchNames\)/);
    const bad = await postBatch(url, { usernames: ['fine', 'not fine'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_username', details: { username: 'not fine' } });
    expect(bad.body.error).toContain('"not fine"');
    expect((await postBatch(url, { usernames: ['twice', 'twice'] })).status).toBe(400);
    expect((await postBatch(url, { usernames: [] })).status).toBe(400);
    expect((await postBatch(url, { usernames: ['x'], categories: ['nsfw'] })).status).toBe(400);
    expect((await usage(url)).searches.used).toBe(0);
  });
});

describe('POST /api/search with variants: lookalike names', () => {
  it('searches each variant on the platforms whose rule accepts it, counting each, and says what it generated', async () => {
    const { url } = await serve({ maxVariantsPerRequest: 6 });
    const r = await postSearch(url, { username: 'john.doe', variants: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'running', totalPlatforms: 4 });
    const variants: { username: string; kind: string; queryId: string; totalPlatforms: number }[] =
      r.body.variants;
    // One of each kind, in a fixed order.
    expect(variants.map((v) => [v.kind, v.username, v.totalPlatforms])).toEqual([
      ['separator', 'john_doe', 4], // every rule accepts it
      ['swap', 'j0hn.doe', 2], // Alpha refuses the dot, Charlie the digit
      ['double', 'jjohn.doe', 3],
      ['drop', 'ohn.doe', 3],
      ['affix', 'realjohn.doe', 3],
      ['homoglyph', '\u0458ohn.doe', 1], // only Charlie's rule states that it takes any letter
    ]);
    expect(r.body.variantsNotSearched).toEqual([]);
    expect(r.headers.get('ratelimit-remaining')).toBe(String(10 - 7));
    // The variant searches are ordinary searches, on only those platforms: nothing invalid to report.
    const swap = await pollUntilDone(url, variants[1]!.queryId, '&include=all');
    expect(swap.body.username).toBe('j0hn.doe');
    expect(swap.body.results.map((x: { platform: string }) => x.platform).sort()).toEqual(['Bravo', 'Delta']);
    expect(swap.body.progress.invalid).toBe(0);
  });

  it('gives the same list every time and none without the option', async () => {
    const { url } = await serve({ maxVariantsPerRequest: 3, proLimit: 100 });
    const { key } = await createKey(running[0]!.service.store, 'variants', 'professional');
    const first = await postSearch(url, { username: 'acme', variants: true }, { 'x-api-key': key });
    const second = await postSearch(url, { username: 'acme', variants: true }, { 'x-api-key': key });
    const names = (r: typeof first) => r.body.variants.map((v: { username: string }) => v.username);
    expect(names(first)).toHaveLength(3);
    expect(names(second)).toEqual(names(first));
    const plain = await postSearch(url, { username: 'acme' }, { 'x-api-key': key });
    expect(plain.body.variants).toBeUndefined();
  });

  it('starts none when the limit does not hold the name and all its variants', async () => {
    const { url } = await serve({ maxVariantsPerRequest: 10, freeLimit: 5 });
    const r = await postSearch(url, { username: 'john.doe', variants: true });
    expect(r.status).toBe(429);
    expect(r.body.details).toMatchObject({ remaining: 5, requested: 11 });
    expect((await usage(url)).searches.used).toBe(0);
  });
});

describe('GET /api/searches: a key sees its own searches', () => {
  it('lists them newest first, a page at a time, and never another client’s', async () => {
    const s = await serve();
    const { key } = await createKey(s.service.store, 'history', 'professional');
    const { key: other } = await createKey(s.service.store, 'other', 'professional');
    const h = { 'x-api-key': key };
    // One at a time, a few ms apart: searches created in the same ms (a batch) are ordered by id.
    const ids: string[] = [];
    for (const username of ['one', 'two', 'three']) {
      const r = await postSearch(s.url, { username, platforms: ['Alpha'] }, h);
      expect(r.status).toBe(200);
      ids.push(r.body.queryId);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await postSearch(s.url, { username: 'free-one', platforms: ['Alpha'] });
    await postSearch(s.url, { username: 'theirs', platforms: ['Alpha'] }, { 'x-api-key': other });

    const first = await json(`${s.url}/api/searches?limit=2`, { headers: h });
    expect(first.status).toBe(200);
    expect(first.body.searches).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await json(`${s.url}/api/searches?limit=2&cursor=${first.body.nextCursor}`, {
      headers: h,
    });
    expect(second.body.searches).toHaveLength(1);
    expect(second.body.nextCursor).toBeUndefined();
    const listed = [...first.body.searches, ...second.body.searches];
    expect(listed.map((x: { username: string }) => x.username)).toEqual(['three', 'two', 'one']);
    expect(listed.map((x: { queryId: string }) => x.queryId)).toEqual([...ids].reverse());
    expect(listed[0]).toMatchObject({
      status: expect.stringMatching(/^(running|completed)$/),
      totalPlatforms: 1,
      estimatedTime: expect.any(Number),
      createdAt: expect.any(String),
    });
    const all = await json(`${s.url}/api/searches`, { headers: h });
    expect(all.body.searches).toHaveLength(3);
  });

  it('needs a key (401 api_key_required) and refuses a cursor it did not give (400)', async () => {
    const s = await serve();
    const r = await json(`${s.url}/api/searches`);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'api_key_required', error: expect.stringMatching(/API key/) });
    const { key } = await createKey(s.service.store, 'cursor', 'professional');
    const bad = await json(`${s.url}/api/searches?cursor=bm9wZQ`, { headers: { 'x-api-key': key } });
    expect(bad.status).toBe(400);
    expect((await json(`${s.url}/api/searches?limit=0`, { headers: { 'x-api-key': key } })).status).toBe(400);
    expect((await json(`${s.url}/api/searches?limit=101`, { headers: { 'x-api-key': key } })).status).toBe(
      400,
    );
  });
});

describe.each([
  ['on the search thread', true],
  ['on the main thread', false],
])('DELETE /api/search/{id}: cancel, %s', (_, searchThread) => {
  // For the tests that leave nothing running: the others need a slot or a queue of their own.
  const idle = serviceForBlock(sim, catalogue, { searchThread }, injectService);
  it('stops a running search: error "cancelled", what it found kept, its slot free at once', async () => {
    // Delta would take 20 s; the next search needs the only slot.
    latency.set('Delta', 20_000);
    const s = await serve({ searchThread, maxRunningSearches: 1, timeoutMs: 30_000 });
    const { key } = await createKey(s.service.store, 'cancel', 'professional');
    const h = { 'x-api-key': key };
    const started = await postSearch(s.url, { username: 'sam', platforms: ['Alpha', 'Delta'] }, h);
    const id = started.body.queryId;
    await waitFor(s.url, id, (b) => b.progress.checked >= 1);

    const { key: other } = await createKey(s.service.store, 'other', 'professional');
    expect((await cancel(s.url, id, { 'x-api-key': other })).body.code).toBe('not_owner');
    expect((await cancel(s.url, id)).status).toBe(403);

    const cancelled = await cancel(s.url, id, h);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      queryId: id,
      status: 'error',
      error: 'cancelled',
      completedAt: expect.any(String),
    });
    const polled = await json(`${s.url}/api/search?id=${id}`);
    expect(polled.body).toMatchObject({ status: 'error', error: 'cancelled' });
    expect(polled.body.results.map((r: { platform: string }) => r.platform)).toEqual(['Alpha']);

    // The slot is free: a new search runs now, well before Delta would have answered.
    const next = await postSearch(s.url, { username: 'sam', platforms: ['Bravo'] }, h);
    const done = await pollUntilDone(s.url, next.body.queryId, '', 100, 10_000);
    expect(done.body.status).toBe('completed');
    // Still cancelled; a second cancel is a 409.
    expect((await json(`${s.url}/api/search?id=${id}`)).body).toMatchObject({
      status: 'error',
      error: 'cancelled',
    });
    expect((await cancel(s.url, id, h)).body.code).toBe('search_finished');
    expect((await cancel(s.url, next.body.queryId, h)).status).toBe(409);
  });

  it('takes a queued search out of the queue; a keyless search is cancelled by whoever holds its id', async () => {
    latency.set('Delta', 1_500);
    const s = await serve({ searchThread, maxRunningSearches: 1 });
    const first = await postSearch(s.url, { username: 'sam', platforms: ['Delta'] });
    const queued = await postSearch(s.url, { username: 'sam', platforms: ['Alpha'] });
    const r = await cancel(s.url, queued.body.queryId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'error', error: 'cancelled' });
    expect((await pollUntilDone(s.url, first.body.queryId)).body.status).toBe('completed');
    const after = await json(`${s.url}/api/search?id=${queued.body.queryId}&include=all`);
    expect(after.body).toMatchObject({ status: 'error', error: 'cancelled', results: [] });
  });

  it("hides another key's private search (404), and refuses a private batch without a professional key", async () => {
    latency.set('Delta', 3_000);
    const s = idle();
    const { key } = await createKey(s.service.store, 'owner', 'professional');
    const { key: other } = await createKey(s.service.store, 'other', 'professional');
    const batch = await postBatch(
      s.url,
      { usernames: ['sam'], platforms: ['Delta'], private: true },
      { 'x-api-key': key },
    );
    expect(batch.status).toBe(200);
    const id = batch.body.searches[0].queryId;
    expect((await cancel(s.url, id, { 'x-api-key': other })).body.code).toBe('search_not_found');
    expect((await cancel(s.url, id)).status).toBe(404);
    expect((await cancel(s.url, id, { 'x-api-key': key })).body).toMatchObject({
      status: 'error',
      error: 'cancelled',
    });
    const free = await postBatch(s.url, { usernames: ['sam'], private: true });
    expect(free.status).toBe(403);
    expect(free.body.code).toBe('private_not_allowed');
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const s = idle();
    expect((await cancel(s.url, '00000000-0000-4000-8000-000000000000')).body.code).toBe('search_not_found');
    expect((await cancel(s.url, 'nope')).status).toBe(400);
  });
});

describe('GET /api/usage', () => {
  it('gives the tier, both limits, what is used and when each window ends', async () => {
    const s = await serve();
    const before = await usage(s.url);
    expect(before).toMatchObject({
      tier: 'free',
      searches: { limit: 10, used: 0, remaining: 10, windowSeconds: 900, resetsAt: null },
      requests: { limit: 1200, windowSeconds: 60 },
    });
    expect(before.requests.used).toBeGreaterThanOrEqual(1);
    await postSearch(s.url, { username: 'sam', platforms: ['Alpha'] });
    const after = await usage(s.url);
    expect(after.searches).toMatchObject({ used: 1, remaining: 9 });
    const resetsIn = Date.parse(after.searches.resetsAt) - Date.now();
    expect(resetsIn).toBeGreaterThan(0);
    expect(resetsIn).toBeLessThanOrEqual(15 * 60_000);
    expect(after.requests.used).toBeGreaterThan(before.requests.used);

    const { key } = await createKey(s.service.store, 'usage', 'professional');
    const pro = await usage(s.url, { 'x-api-key': key });
    expect(pro).toMatchObject({
      tier: 'professional',
      searches: { limit: 1000, used: 0, windowSeconds: 3600 },
      requests: { limit: 6000 },
    });
  });
});
