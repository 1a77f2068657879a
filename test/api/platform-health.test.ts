/**
 * From self-check to the service: a platform whose markup changed is found
 * broken by `catalogue self-check`, which writes health.json in the data dir;
 * the service started on that data dir leaves it out of searches and lists it
 * as disabled with the reason and the time it was last validated.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/api/report-html.js';
import { runSelfCheck } from '../../src/cli/catalogue-self-check.js';
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
  tempDir,
} from '../support/service.js';

const specs = [entry('Alpha'), entry('Bravo'), entry('Charlie', { category: 'coding' }), entry('Delta')];
const catalogue = catalogueOf(specs);
const names = new Map(catalogue.platforms.map((p) => [p.id, p.name]));
const VALIDATED_AT = Date.UTC(2026, 2, 3, 4, 5, 6);

// Bravo was redesigned: every name now gets the same page, which its rules do not expect.
// Delta is behind a bot shield: self-check cannot tell, so it stays in searches.
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, {
    accounts: (p) => [...p.known.claimed, 'sam'],
    override: (p) =>
      p.name === 'Bravo'
        ? { kind: 'respond', status: 200, body: '<html><body>Welcome to the new Bravo</body></html>' }
        : p.name === 'Delta'
          ? { kind: 'waf', vendor: 'cloudflare' }
          : undefined,
  }).routes,
});
const dataDir = tempDir();
let running: RunningService;

beforeAll(async () => {
  await sim.start();
  const catalogueFile = join(dataDir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dataDir, 'ca.pem');
  writeFileSync(caFile, sim.caCert);
  const { report } = await runSelfCheck(
    { catalogue: catalogueFile, dataDir, connectTo: sim.connectTo, caFile, format: 'json', progress: false },
    { out: () => {}, err: () => {}, stderr: new PassThrough() },
    { env: { USERSCOUT_RETRIES: '0', USERSCOUT_CONNECT_TIMEOUT_MS: '20000' }, now: () => VALIDATED_AT },
  );
  expect(report).toMatchObject({ healthy: 2, broken: 1, blocked: 1 });
  running = await injectService(sim, catalogue, { dataDir });
}, 60_000);
afterAll(async () => {
  await running?.service.close();
  await sim.stop();
});

describe('the service and the health file', () => {
  it('lists a broken platform as disabled, with the reason and when it was validated', async () => {
    const r = await json(`${running.url}/api/platforms`);
    expect(r.status).toBe(200);
    const byName = new Map((r.body.platforms as { name: string }[]).map((p) => [p.name, p]));
    expect(byName.get('Bravo')).toEqual({
      name: 'Bravo',
      id: 'bravo',
      category: 'social',
      url: 'https://bravo.test/',
      enabled: false,
      nsfw: false,
      tags: [],
      transport: 'http',
      session: 'optional',
      // Bravo's rule is "status 200 means an account": on the new page every name looks taken.
      disabledReason:
        'unclaimed "nobody-here-7": expected miss, got hit (HTTP 200, https://bravo.test/u/nobody-here-7, exists: status 200)',
      lastValidatedAt: new Date(VALIDATED_AT).toISOString(),
      health: {
        state: 'broken',
        lastCheckedAt: new Date(VALIDATED_AT).toISOString(),
        reason:
          'unclaimed "nobody-here-7": expected miss, got hit (HTTP 200, https://bravo.test/u/nobody-here-7, exists: status 200)',
      },
    });
    expect(byName.get('Alpha')).toMatchObject({ enabled: true, lastValidatedAt: '2026-03-03T04:05:06.000Z' });
    expect(byName.get('Alpha')).not.toHaveProperty('disabledReason');
    // Blocked is "could not tell", not broken: still enabled.
    expect(byName.get('Delta')).toMatchObject({ enabled: true, lastValidatedAt: '2026-03-03T04:05:06.000Z' });
    expect(byName.get('Delta')).not.toHaveProperty('disabledReason');

    const social = await json(`${running.url}/api/categories`);
    const count = (social.body.categories as { name: string; platforms: number }[]).find(
      (c) => c.name === 'social',
    );
    expect(count?.platforms).toBe(2);
  });

  it('leaves the broken platform out of searches', async () => {
    const started = await postSearch(running.url, { username: 'sam' });
    expect(started.status).toBe(200);
    expect(started.body.totalPlatforms).toBe(3);
    const done = await pollUntilDone(running.url, started.body.queryId, '&include=all');
    const results = done.body.results as { platform: string; status: string }[];
    expect(results.map((o) => o.platform).sort()).toEqual(['Alpha', 'Charlie', 'Delta']);
    expect(results.find((o) => o.platform === 'Alpha')?.status).toBe('hit');

    const only = await postSearch(running.url, { username: 'sam', platforms: ['Bravo'] });
    expect(only.status).toBe(400);
  });
});

describe('the report and the platform list', () => {
  it('show the same platform health: the health file and the control records (rule drift)', async () => {
    const started = await postSearch(running.url, { username: 'sam' });
    const id = started.body.queryId as string;
    await pollUntilDone(running.url, id);
    // A control check of Charlie read a hit: its rule no longer tells accounts apart.
    await running.service.store.putControl({
      platformId: 'charlie',
      identity: 'direct',
      username: 'zq-control-name',
      status: 'hit',
      rule: 'exists: status 200',
      drift: true,
      checkedAt: Date.UTC(2026, 2, 4),
    });
    const listed = (await json(`${running.url}/api/platforms`)).body.platforms as {
      id: string;
      health: { state: string; reason?: string };
    }[];
    const unhealthy = listed.filter((p) => ['rule_drift', 'broken', 'blocked'].includes(p.health.state));
    expect(unhealthy.map((p) => [p.id, p.health.state])).toEqual([
      ['bravo', 'broken'],
      ['charlie', 'rule_drift'],
      ['delta', 'blocked'],
    ]);

    const html = await (await send(`${running.url}/api/search/${id}/report.html`)).text();
    const section = html.slice(html.indexOf('<h2>Platform health at the time</h2>'));
    const rows = [...section.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map(
      (m) => [m[1], m[2], m[3]],
    );
    expect(rows).toEqual(
      unhealthy.map((p) => [names.get(p.id), p.health.state, escapeHtml(p.health.reason ?? '')]),
    );
  });
});
