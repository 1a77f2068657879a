/**
 * Revoking a key ends what it started, through the running service: its open
 * event streams close, and its queued and running searches end with status
 * error ("key revoked"), while other clients' searches go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/cli/keys.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, postSearch, type RunningService, startService } from '../support/service.js';

/** Each check takes this long: long enough that nothing ends by itself before the revocation. */
const SITE_MS = 8_000;
const catalogue = catalogueOf([entry('Alpha')]);
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => SITE_MS }).routes,
});
let s: RunningService;

beforeAll(async () => {
  await sim.start();
  s = await startService(sim, catalogue, {
    revocationCheckMs: 100,
    maxRunningSearches: 1,
    timeoutMs: 20_000,
  });
});
afterAll(async () => {
  await s?.service.close();
  await sim.stop();
});

/** The search's status, once it is neither queued nor running (bounded). */
async function ended(id: string, limitMs: number): Promise<{ status: string; error?: string }> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await json(`${s.url}/api/search?id=${id}`);
    if (r.body.status !== 'running' && r.body.status !== 'queued') return r.body;
    if (Date.now() > deadline) throw new Error(`search ${id} still ${r.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('revoking a key', () => {
  it('closes its event streams and ends its queued and running searches', async () => {
    const { id: keyId, key } = await createKey(s.service.store, 'to revoke', 'professional');
    const withKey = { 'x-api-key': key };
    // Someone else's search, started first: it runs on, while the key's stream on it closes.
    const other = await postSearch(s.url, { username: 'sam', platforms: ['Alpha'] });
    const mine: string[] = [];
    for (const username of ['bob', 'carol', 'dave']) {
      const r = await postSearch(s.url, { username, platforms: ['Alpha'] }, withKey);
      expect(r.status).toBe(200);
      mine.push(r.body.queryId);
    }
    const follow = (id: string) =>
      fetch(`${s.url}/api/search/${id}/events`, { headers: withKey, signal: AbortSignal.timeout(30_000) });
    const streams = await Promise.all([follow(mine[0]!), follow(other.body.queryId)]);
    for (const stream of streams) expect(stream.status).toBe(200);
    const texts = streams.map((stream) => stream.text());

    await revokeKey(s.service.store, keyId);
    // Both streams end: the other search's before it finished (no `done`).
    const [mineText, otherText] = await Promise.all(texts);
    expect(otherText).not.toContain('event: done');
    expect(mineText).not.toContain('"completed"');
    for (const id of mine)
      expect(await ended(id, 10_000)).toMatchObject({ status: 'error', error: 'key revoked' });
    // The other client's search is not the key's: it completes.
    expect(await ended(other.body.queryId, 60_000)).toMatchObject({ status: 'completed' });
    // And the key is refused from now on.
    expect((await json(`${s.url}/api/search?id=${mine[0]}`, { headers: withKey })).status).toBe(401);
  }, 90_000);
});
