/**
 * Narrowing a search by tag and to the curated top set, through the API (POST
 * /api/search and POST /api/searches) and the typed client, on the simulated web.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserscoutClient } from '../../src/client/client.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { send } from '../support/in-memory-api.js';
import {
  injectService,
  json,
  pollUntilDone,
  postSearch,
  type RunningService,
  serviceForBlock,
} from '../support/service.js';

// GitHub and Codeberg are in the top set by id; the others are not.
const catalogue = catalogueOf([
  entry('GitHub', { category: 'coding', tags: ['git', 'opensource'] }),
  entry('Codeberg', { category: 'coding', tags: ['Git', 'fediverse'] }),
  entry('Photo Place', { category: 'art', tags: ['photography'] }),
  entry('Night Place', { category: 'social', tags: ['photography'], nsfw: true }),
]);
const sim = new SimWeb({ routes: emulateCatalogue(catalogue.platforms, catalogue.shields).routes });
beforeAll(() => sim.start());
afterAll(() => sim.stop());
const service = serviceForBlock(sim, catalogue, {}, injectService);
let running: RunningService;
beforeAll(() => {
  running = service();
});

/** The names of the platforms a finished search covered. */
async function platformsOf(queryId: string): Promise<string[]> {
  const done = await pollUntilDone(running.url, queryId, '&include=all');
  expect(done.body.status).toBe('completed');
  return (done.body.results as { platform: string }[]).map((r) => r.platform).sort();
}

describe('a search narrowed by tag or to the top set', () => {
  it('covers the platforms with any tag asked (any case), NSFW still behind its own choice', async () => {
    const started = await postSearch(running.url, { username: 'alice', tags: ['GIT'] });
    expect(started.status).toBe(200);
    expect(started.body.totalPlatforms).toBe(2);
    expect(await platformsOf(started.body.queryId as string)).toEqual(['Codeberg', 'GitHub']);
    const photos = await postSearch(running.url, {
      username: 'alice',
      tags: ['photography'],
      includeNsfw: true,
    });
    expect(photos.body.totalPlatforms).toBe(2);
  });

  it('covers only the curated top set with top: true, in a batch and through the typed client too', async () => {
    const started = await postSearch(running.url, { username: 'alice', top: true });
    expect(started.body.totalPlatforms).toBe(2);
    expect(await platformsOf(started.body.queryId as string)).toEqual(['Codeberg', 'GitHub']);
    const batch = await json(`${running.url}/api/searches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usernames: ['alice', 'bob'], top: true, tags: ['fediverse'] }),
    });
    expect(batch.status).toBe(200);
    for (const s of batch.body.searches as { totalPlatforms: number }[]) expect(s.totalPlatforms).toBe(1);
    const client = new UserscoutClient({ baseUrl: running.url, fetch: send });
    expect((await client.start('carol', { tags: ['opensource'] })).totalPlatforms).toBe(1);
  });

  it('refuses a choice no enabled platform matches, and a tag that is not a short string', async () => {
    const none = await postSearch(running.url, { username: 'alice', tags: ['nothing-has-this'] });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'bad_request' });
    const bad = await postSearch(running.url, { username: 'alice', tags: [''] });
    expect(bad.status).toBe(400);
  });
});
