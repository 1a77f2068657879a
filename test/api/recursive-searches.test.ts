/**
 * Recursive searches end to end on the simulated web, as a user meets them: Alpha's
 * profile of alice links to Bravo's profile of bob and Charlie's of rabbit.
 * With recursive: true the completed search starts one follow-up per new
 * name, counted against the search limit (here 3: a plain search, the
 * recursive one and bob's fit; rabbit's does not), and says which hit led to
 * each; bob's profile links further, but a follow-up never recurses. They
 * start as the search completes, whether anyone reads it or not (on the search
 * thread or without it), and a read starts those a dead process left unstarted.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUpClaim, followUpId } from '../../src/api/follow-ups.js';
import { UserscoutError } from '../../src/errors.js';
import type { SearchRecord } from '../../src/store/store.js';
import { followUpsCatalogue as catalogue, followUpsSim } from '../support/follow-ups-fixture.js';
import { send } from '../support/in-memory-api.js';
import { injectService, json, pollUntilDone, postSearch, type RunningService } from '../support/service.js';

/** Polls the search until it is finished and its follow-ups (if any) are recorded. */
async function pollUntilFollowedUp(url: string, id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await pollUntilDone(url, id);
    if (!r.body.followUpsPending) return r;
    if (Date.now() > deadline) throw new Error(`follow-ups of ${id} still pending after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits on the store, never the API, until `ready` holds of the search. */
/**
 * A service on the follow-ups' simulated web with these settings, for the describe
 * block that calls it: started before its tests, closed after.
 */
function followUpsService(settings: Parameters<typeof injectService>[2]): { running: RunningService } {
  const sim = followUpsSim();
  const service = {} as { running: RunningService };
  beforeAll(async () => {
    await sim.start();
    service.running = await injectService(sim, catalogue, settings);
  });
  afterAll(async () => {
    await service.running?.service.close();
    await sim.stop();
  });
  return service;
}

async function storeUntil(running: RunningService, id: string, ready: (s: SearchRecord) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const search = await running.service.store.getSearch(id);
    if (search && ready(search)) return search;
    if (Date.now() > deadline) throw new Error(`search ${id} not ready in 30 s: ${JSON.stringify(search)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A completed recursive search (alice's hits: bob and rabbit to follow up), finished `agoMs` ago, follow-ups never started. */
async function completedRecursive(running: RunningService, agoMs: number): Promise<string> {
  const { store } = running.service;
  const plain = await postSearch(running.url, { username: 'alice' });
  const done = await storeUntil(running, plain.body.queryId, (s) => s.state === 'completed');
  const id = randomUUID();
  await store.createSearch({ ...done, id, recursive: true, finishedAt: Date.now() - agoMs });
  await store.addOutcomes(
    id,
    (await store.listOutcomes(done.id)).map((s) => s.outcome),
  );
  return id;
}

describe('recursive searches', () => {
  const service = followUpsService({ freeLimit: 3 });
  const used = async () => (await json(`${service.running.url}/api/usage`)).body.searches.used as number;

  it('starts nothing without recursive', async () => {
    const started = await postSearch(service.running.url, { username: 'alice' });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(service.running.url, started.body.queryId);
    expect(done.body.status).toBe('completed');
    expect(done.body.links).toHaveLength(2);
    expect(done.body.followUps).toBeUndefined();
    expect(await used()).toBe(1);
  });

  it('follows up each new name once, says which hit led to it, and lists those past the limit', async () => {
    const started = await postSearch(service.running.url, { username: 'alice', recursive: true });
    expect(started.status).toBe(200);
    const done = await pollUntilFollowedUp(service.running.url, started.body.queryId);
    expect(done.body.status).toBe('completed');
    expect(done.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: expect.any(String) },
      { username: 'rabbit', from: 'alpha', notSearched: 'search limit reached' },
    ]);
    expect(await used()).toBe(3);

    // The follow-up completes, finds bob on Bravo, and does not recurse though bob's profile links on.
    const bobId = done.body.followUps[0].queryId as string;
    const bob = await pollUntilDone(service.running.url, bobId);
    expect(bob.body.status).toBe('completed');
    expect(bob.body.username).toBe('bob');
    expect(bob.body.results.map((r: { platformId: string }) => r.platformId)).toEqual(['bravo']);
    expect(bob.body.links).toEqual([
      { from: 'bravo', to: 'charlie', username: 'carol', url: 'https://charlie.test/u/carol' },
    ]);
    expect(bob.body.followUps).toBeUndefined();

    // Read again (every outcome, then hits): the same follow-ups, none started twice.
    const all = await json(`${service.running.url}/api/search?id=${started.body.queryId}&include=all`);
    expect(all.body.followUps).toEqual(done.body.followUps);
    const again = await json(`${service.running.url}/api/search?id=${started.body.queryId}`);
    expect(again.body.followUps).toEqual(done.body.followUps);
    expect(await used()).toBe(3);

    // The report lists them from the same view: which hit led to each, a link to the one started.
    const report = await (
      await send(`${service.running.url}/api/search/${started.body.queryId}/report.html`)
    ).text();
    const section = report.slice(report.indexOf('<h2>Follow-up searches (2)</h2>'));
    expect(section).toContain(
      `<tr><td><code>bob</code></td><td>Alpha</td><td><a href="../${bobId}/report.html">${bobId}</a></td></tr>`,
    );
    expect(section).toContain(
      '<tr><td><code>rabbit</code></td><td>Alpha</td><td><span class="muted">not searched: search limit reached</span></td></tr>',
    );
    // The link leads to the follow-up's own report (relative to this one's address).
    const linked = await send(
      new URL(
        `../${bobId}/report.html`,
        `${service.running.url}/api/search/${started.body.queryId}/report.html`,
      ),
    );
    expect(linked.status).toBe(200);
    expect(await linked.text()).toContain('<title>userscout report: bob</title>');
    expect(await used()).toBe(3);
  });
});

describe('recursive searches read by many at once', () => {
  const service = followUpsService({ freeLimit: 10 });

  it('starts the follow-ups once however many answers of the completed search are served together', async () => {
    const started = await postSearch(service.running.url, { username: 'alice', recursive: true });
    const id = started.body.queryId as string;
    // Wait on the store, not the API: the first answers of the completed search are the concurrent ones.
    const deadline = Date.now() + 30_000;
    while ((await service.running.service.store.getSearch(id))?.state !== 'completed') {
      if (Date.now() > deadline) throw new Error('search not completed in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        json(`${service.running.url}/api/search?id=${id}${i % 2 ? '&include=all' : ''}`),
      ),
    );
    const final = (await pollUntilFollowedUp(service.running.url, id)).body.followUps;
    expect(final).toEqual([
      { username: 'bob', from: 'alpha', queryId: expect.any(String) },
      { username: 'rabbit', from: 'alpha', queryId: expect.any(String) },
    ]);
    // Each answer has them all or (while they were being started) none, and says so.
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      if (answer.body.followUps !== undefined) expect(answer.body.followUps).toEqual(final);
      else expect(answer.body.followUpsPending).toBe(true);
    }
    expect((await json(`${service.running.url}/api/usage`)).body.searches.used).toBe(3);
  });
});

describe.each([
  { searchThread: true, label: 'on the search thread' },
  { searchThread: false, label: 'on the API thread' },
])('recursive searches nobody reads ($label)', ({ searchThread }) => {
  const service = followUpsService({ freeLimit: 10, searchThread });

  it('starts the follow-ups as the search completes, once, though no answer of it is ever served', async () => {
    const started = await postSearch(service.running.url, { username: 'alice', recursive: true });
    const id = started.body.queryId as string;
    // Only the store is watched: no GET /api/search, no report, no event stream.
    const parent = await storeUntil(service.running, id, (s) => s.followUps !== undefined);
    expect(parent.state).toBe('completed');
    expect(parent.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(id, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(id, 'rabbit') },
    ]);
    const bob = await storeUntil(service.running, followUpId(id, 'bob'), (s) => s.state === 'completed');
    expect(bob.username).toBe('bob');
    expect(bob.recursive).toBeUndefined();
    await storeUntil(service.running, followUpId(id, 'rabbit'), (s) => s.state === 'completed');
    // Exactly once: three searches stored and counted, the parent and one per name.
    const stored = await service.running.service.store.listSearchesByClient(parent.client, { limit: 100 });
    expect(stored.map((s) => s.username).sort()).toEqual(['alice', 'bob', 'rabbit']);
    expect((await json(`${service.running.url}/api/usage`)).body.searches.used).toBe(3);
  });
});

describe('follow-ups a dead process left unstarted', () => {
  const leaseMs = 1_000;
  const retryForMs = 60_000;
  const service = followUpsService({
    freeLimit: 10,
    followUpLeaseMs: leaseMs,
    followUpRetryForMs: retryForMs,
  });

  it('are started by a read once its lease has run out, without starting again the one it had started', async () => {
    const { store } = service.running.service;
    // A plain search gives a real completed search's record and outcomes (it counts one).
    const plain = await postSearch(service.running.url, { username: 'alice' });
    const done = await storeUntil(service.running, plain.body.queryId, (s) => s.state === 'completed');
    // The dead process: it ran a recursive search to completion, claimed its follow-ups,
    // started bob's and died before starting rabbit's or recording them.
    const id = randomUUID();
    await store.createSearch({ ...done, id, recursive: true, finishedAt: Date.now() });
    await store.addOutcomes(
      id,
      (await store.listOutcomes(done.id)).map((s) => s.outcome),
    );
    expect(await store.claimLease(followUpClaim(id), leaseMs, Date.now())).toBe(true);
    await store.createSearch({ ...done, id: followUpId(id, 'bob'), username: 'bob' });

    // Within the lease: said to be pending, nothing started.
    const early = await json(`${service.running.url}/api/search?id=${id}`);
    expect(early.body.status).toBe('completed');
    expect(early.body.followUpsPending).toBe(true);
    expect(early.body.followUps).toBeUndefined();
    const earlyReport = await (await send(`${service.running.url}/api/search/${id}/report.html`)).text();
    expect(earlyReport).toContain('The follow-up searches of this recursive search are being started');

    const late = await pollUntilFollowedUp(service.running.url, id);
    expect(late.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(id, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(id, 'rabbit') },
    ]);
    expect(late.body.followUpsPending).toBeUndefined();
    // Only rabbit's was started (and counted) here.
    expect((await json(`${service.running.url}/api/usage`)).body.searches.used).toBe(2);
    const stored = await store.listSearchesByClient(done.client, { limit: 100 });
    expect(stored.map((s) => s.username).sort()).toEqual(['alice', 'alice', 'bob', 'rabbit']);
  });

  it('are left pending by a read while the queue refuses for now, the search answered, and started by a later read', async () => {
    const { runner } = service.running.service;
    // Completed longer ago than the lease, its follow-ups never started: the next read starts them.
    const id = await completedRecursive(service.running, leaseMs);
    const admit = runner.admit;
    runner.admit = async () => {
      throw new UserscoutError('unavailable');
    };
    try {
      const read = await json(`${service.running.url}/api/search?id=${id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.status).toBe('completed');
      expect(read.body.followUpsPending).toBe(true);
    } finally {
      runner.admit = admit;
    }
    const late = await pollUntilFollowedUp(service.running.url, id);
    expect(late.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(id, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(id, 'rabbit') },
    ]);
  });
});

describe('follow-ups the queue refuses', () => {
  const leaseMs = 1_000;
  const retryForMs = 60_000;
  const service = followUpsService({
    freeLimit: 10,
    followUpLeaseMs: leaseMs,
    followUpRetryForMs: retryForMs,
  });

  /** Runs `work` while the runner refuses every admission with queue_full. */
  async function whileQueueFull<T>(work: () => Promise<T>): Promise<T> {
    const { runner } = service.running.service;
    const admit = runner.admit;
    runner.admit = async () => {
      throw new UserscoutError('queue_full', undefined, { details: { retryAfter: 30 } });
    };
    try {
      return await work();
    } finally {
      runner.admit = admit;
    }
  }

  it('leaves them pending, recorded by none, while the queue is full, and a read after the lease starts them', async () => {
    const id = await completedRecursive(service.running, leaseMs);
    const read = await whileQueueFull(() => json(`${service.running.url}/api/search?id=${id}`));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.status).toBe('completed');
    expect(read.body.followUpsPending).toBe(true);
    expect(read.body.followUps).toBeUndefined();
    expect((await service.running.service.store.getSearch(id))?.followUps).toBeUndefined();

    // The queue has room again: the first read once the refused attempt's lease ran out starts them.
    const late = await pollUntilFollowedUp(service.running.url, id);
    expect(late.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(id, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(id, 'rabbit') },
    ]);
  });

  it('records them as not searched (queue full) once the search completed followUpRetryForMs ago', async () => {
    const id = await completedRecursive(service.running, retryForMs);
    const read = await whileQueueFull(() => json(`${service.running.url}/api/search?id=${id}`));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.followUpsPending).toBeUndefined();
    expect(read.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', notSearched: 'queue full' },
      { username: 'rabbit', from: 'alpha', notSearched: 'queue full' },
    ]);
    // Recorded: read again with room in the queue, the same.
    const again = await json(`${service.running.url}/api/search?id=${id}`);
    expect(again.body.followUps).toEqual(read.body.followUps);
  });
});

describe('recursive batches', () => {
  const service = followUpsService({ freeLimit: 10 });

  it('makes the search of each name recursive, with its own follow-ups, each counted', async () => {
    const r = await json(`${service.running.url}/api/searches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usernames: ['alice', 'bob'], recursive: true }),
    });
    expect(r.status).toBe(200);
    const [alice, bob] = r.body.searches.map((s: { queryId: string }) => s.queryId) as string[];
    const aliceDone = await storeUntil(service.running, alice!, (s) => s.followUps !== undefined);
    const bobDone = await storeUntil(service.running, bob!, (s) => s.followUps !== undefined);
    expect(aliceDone.recursive).toBe(true);
    expect(aliceDone.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: followUpId(alice!, 'bob') },
      { username: 'rabbit', from: 'alpha', queryId: followUpId(alice!, 'rabbit') },
    ]);
    // bob's profile on Bravo links to carol on Charlie.
    expect(bobDone.followUps).toEqual([
      { username: 'carol', from: 'bravo', queryId: followUpId(bob!, 'carol') },
    ]);
    const carol = await storeUntil(
      service.running,
      followUpId(bob!, 'carol'),
      (s) => s.state === 'completed',
    );
    expect(carol.recursive).toBeUndefined();
    // Two names and three follow-ups.
    expect((await json(`${service.running.url}/api/usage`)).body.searches.used).toBe(5);
  });

  it('refuses a recursive that is not a boolean', async () => {
    const r = await json(`${service.running.url}/api/searches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usernames: ['alice'], recursive: 'yes' }),
    });
    expect(r.status).toBe(400);
  });
});
