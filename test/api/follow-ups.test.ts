/**
 * Recursive searches end to end on the simulated web (issue 19): Alpha's
 * profile of alice links to Bravo's profile of bob and Charlie's of rabbit.
 * With recursive: true the completed search starts one follow-up per new
 * name, counted against the search limit (here 3: a plain search, the
 * recursive one and bob's fit; rabbit's does not), and says which hit led to
 * each; bob's profile links further, but a follow-up never recurses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, pollUntilDone, postSearch, type RunningService, startService } from '../support/service.js';

const page = (name: string, sameAs: string[]) =>
  `<!DOCTYPE html><html><head><title>${name}</title>
<script type="application/ld+json">${JSON.stringify({ '@type': 'Person', name, sameAs })}</script>
</head><body><h1>${name}</h1></body></html>`;

const catalogue = catalogueOf([
  entry('Alpha'),
  entry('Bravo', { known: { claimed: ['bob'], unclaimed: ['x-none-1'] } }),
  entry('Charlie', { known: { claimed: ['rabbit'], unclaimed: ['x-none-1'] } }),
]);
const html = (body: string): Behaviour => ({
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/html' },
  body,
});
const override = (platform: { id: string }, username: string): Behaviour | undefined => {
  if (platform.id === 'alpha' && username === 'alice')
    return html(page('Alice', ['https://bravo.test/u/bob', 'https://charlie.test/u/rabbit']));
  if (platform.id === 'bravo' && username === 'bob')
    return html(page('Bob', ['https://charlie.test/u/carol']));
  return undefined;
};

describe('recursive searches', () => {
  const sim = new SimWeb({
    routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { override }).routes,
  });
  let running: RunningService;
  const used = async () => (await json(`${running.url}/api/usage`)).body.searches.used as number;

  beforeAll(async () => {
    await sim.start();
    running = await startService(sim, catalogue, { freeLimit: 3 });
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('starts nothing without recursive', async () => {
    const started = await postSearch(running.url, { username: 'alice' });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(running.url, started.body.queryId);
    expect(done.body.status).toBe('completed');
    expect(done.body.links).toHaveLength(2);
    expect(done.body.followUps).toBeUndefined();
    expect(await used()).toBe(1);
  });

  it('follows up each new name once, says which hit led to it, and lists those past the limit', async () => {
    const started = await postSearch(running.url, { username: 'alice', recursive: true });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(running.url, started.body.queryId);
    expect(done.body.status).toBe('completed');
    expect(done.body.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: expect.any(String) },
      { username: 'rabbit', from: 'alpha', notSearched: 'search limit reached' },
    ]);
    expect(await used()).toBe(3);

    // The follow-up completes, finds bob on Bravo, and does not recurse though bob's profile links on.
    const bobId = done.body.followUps[0].queryId as string;
    const bob = await pollUntilDone(running.url, bobId);
    expect(bob.body.status).toBe('completed');
    expect(bob.body.username).toBe('bob');
    expect(bob.body.results.map((r: { platformId: string }) => r.platformId)).toEqual(['bravo']);
    expect(bob.body.links).toEqual([
      { from: 'bravo', to: 'charlie', username: 'carol', url: 'https://charlie.test/u/carol' },
    ]);
    expect(bob.body.followUps).toBeUndefined();

    // Read again (every outcome, then hits): the same follow-ups, none started twice.
    const all = await json(`${running.url}/api/search?id=${started.body.queryId}&include=all`);
    expect(all.body.followUps).toEqual(done.body.followUps);
    const again = await json(`${running.url}/api/search?id=${started.body.queryId}`);
    expect(again.body.followUps).toEqual(done.body.followUps);
    expect(await used()).toBe(3);
  });
});

describe('recursive searches read by many at once', () => {
  const sim = new SimWeb({
    routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { override }).routes,
  });
  let running: RunningService;

  beforeAll(async () => {
    await sim.start();
    running = await startService(sim, catalogue, { freeLimit: 10 });
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('starts the follow-ups once however many answers of the completed search are served together', async () => {
    const started = await postSearch(running.url, { username: 'alice', recursive: true });
    const id = started.body.queryId as string;
    // Wait on the store, not the API: the first answers of the completed search are the concurrent ones.
    const deadline = Date.now() + 30_000;
    while ((await running.service.store.getSearch(id))?.state !== 'completed') {
      if (Date.now() > deadline) throw new Error('search not completed in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        json(`${running.url}/api/search?id=${id}${i % 2 ? '&include=all' : ''}`),
      ),
    );
    const final = (await json(`${running.url}/api/search?id=${id}`)).body.followUps;
    expect(final).toEqual([
      { username: 'bob', from: 'alpha', queryId: expect.any(String) },
      { username: 'rabbit', from: 'alpha', queryId: expect.any(String) },
    ]);
    // Each answer has them all or (while another was starting them) none.
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      if (answer.body.followUps !== undefined) expect(answer.body.followUps).toEqual(final);
    }
    expect((await json(`${running.url}/api/usage`)).body.searches.used).toBe(3);
  });
});
