/**
 * Profile details, linked accounts and the HTML report, end to end on the
 * simulated web: a hit's page carries Open Graph tags, JSON-LD and a rel="me"
 * link to another platform's profile; the API answers the details and the
 * link, and the report renders them in Chromium with no request and no error.
 * Drives the API by inject (test/support/in-memory-api.ts); Chromium's requests are routed to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { routeInMemory, send } from '../support/in-memory-api.js';
import { injectService, json, pollUntilDone, postSearch, type RunningService } from '../support/service.js';
import { launchBrowser } from '../web/support.js';

const XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
const attr = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const alphaPage = `<!DOCTYPE html><html><head><title>alice on Alpha</title>
<meta property="og:title" content="Alice Liddell">
<meta property="og:description" content="${attr(`Explorer. ${XSS}`)}">
<meta property="og:image" content="https://cdn.alpha.test/a.png">
<script type="application/ld+json">{"@type":"Person","name":"Alice Liddell","homeLocation":{"name":"Oxford"},"sameAs":["https://bravo.test/u/alice","https://charlie.test/u/rabbit"]}</script>
<link rel="me" href="javascript:alert(1)">
</head><body><h1>alice</h1></body></html>`;

describe('profile details, linked accounts and the report', () => {
  const specs = [
    entry('Alpha'),
    entry('Bravo', { known: { claimed: ['bob'], unclaimed: ['x-none-1'] } }),
    entry('Charlie', { known: { claimed: ['rabbit'], unclaimed: ['x-none-1'] } }),
  ];
  const catalogue = catalogueOf(specs);
  const override = (platform: { id: string }, username: string): Behaviour | undefined =>
    platform.id === 'alpha' && username === 'alice'
      ? { kind: 'respond', status: 200, headers: { 'content-type': 'text/html' }, body: alphaPage }
      : undefined;
  const sim = new SimWeb({
    routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { override }).routes,
  });
  let running: RunningService;
  let id = '';

  beforeAll(async () => {
    await sim.start();
    running = await injectService(sim, catalogue);
    const started = await postSearch(running.url, { username: 'alice' });
    id = started.body.queryId;
    await pollUntilDone(running.url, id);
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it("gives a hit's profile details, cleaned of markup, and the accounts it links to", async () => {
    const all = (await json(`${running.url}/api/search?id=${id}&include=all`)).body;
    const alpha = all.results.find((r: { platformId: string }) => r.platformId === 'alpha');
    expect(alpha.status).toBe('hit');
    expect(alpha.profile).toEqual({
      fullName: 'Alice Liddell',
      bio: 'Explorer. window.__pwned = 1',
      location: 'Oxford',
      avatarUrl: 'https://cdn.alpha.test/a.png',
      links: ['https://bravo.test/u/alice', 'https://charlie.test/u/rabbit'],
    });
    // Bravo has no alice: still marked as linked from Alpha, so a person can look.
    const bravo = all.results.find((r: { platformId: string }) => r.platformId === 'bravo');
    expect(bravo.status).toBe('miss');
    expect(bravo.linkedFrom).toEqual(['alpha']);
    expect(all.links).toEqual([
      { from: 'alpha', to: 'bravo', username: 'alice', url: 'https://bravo.test/u/alice' },
      { from: 'alpha', to: 'charlie', username: 'rabbit', url: 'https://charlie.test/u/rabbit' },
    ]);
    // The default answer (hits) carries the profile too.
    const hits = (await json(`${running.url}/api/search?id=${id}`)).body;
    expect(hits.results.find((r: { platformId: string }) => r.platformId === 'alpha').profile.fullName).toBe(
      'Alice Liddell',
    );
  });

  it('serves a self-contained report that shows hostile text as text', async () => {
    const response = await send(`${running.url}/api/search/${id}/report.html`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await response.text();
    expect(html).not.toMatch(/<script|<img|javascript:/i);
    expect(html).toContain('Alice Liddell');
    expect(html).toMatch(/Misses \(answered: no account\)<\/th><td class="n">2</);
    const missing = await send(`${running.url}/api/search/00000000-0000-4000-8000-000000000000/report.html`);
    expect(missing.status).toBe(404);
  });

  it('renders in Chromium with no console error and no request beyond the document', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await routeInMemory(page);
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => requests.push(r.url()));
      const url = `${running.url}/api/search/${id}/report.html`;
      await page.goto(url, { waitUntil: 'load' });
      expect(await page.locator('h1').textContent()).toBe('userscout report: alice');
      // The bio's markup is shown as text, and never ran.
      expect(await page.getByText('Explorer. window.__pwned = 1').count()).toBe(1);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
    } finally {
      await browser.close();
    }
  });
});

describe('a linked platform that had not answered, stored before the link was seen', () => {
  const specs = [entry('Alpha'), entry('Bravo', { known: { claimed: ['alice'], unclaimed: ['x-none-1'] } })];
  const catalogue = catalogueOf(specs);
  const linking = `<!DOCTYPE html><html><head><title>alice on Alpha</title>
<link rel="me" href="https://bravo.test/u/alice"></head><body><h1>alice</h1></body></html>`;
  // Bravo fails until Alpha has been asked, then answers as it should (alice exists there).
  let alphaAsked = false;
  const bravoAnswers: number[] = [];
  const override = (platform: { id: string }, username: string): Behaviour | undefined => {
    if (username !== 'alice') return undefined;
    if (platform.id === 'alpha') {
      alphaAsked = true;
      return { kind: 'respond', status: 200, headers: { 'content-type': 'text/html' }, body: linking };
    }
    if (platform.id === 'bravo') {
      bravoAnswers.push(alphaAsked ? 200 : 500);
      if (!alphaAsked) return { kind: 'respond', status: 500, body: 'upstream failed' };
    }
    return undefined;
  };
  const sim = new SimWeb({
    routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { override }).routes,
  });
  let running: RunningService;

  beforeAll(async () => {
    await sim.start();
    // One check at a time, Bravo first (measured slowest): its failure is settled before Alpha is asked.
    running = await injectService(sim, catalogue, { concurrency: 1 });
    await running.service.store.recordCheck('bravo', 'miss', 9_000, Date.now());
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it("checks it once more and answers the later answer, marked as linked from the hit's platform", async () => {
    const started = await postSearch(running.url, { username: 'alice' });
    const id = started.body.queryId;
    const all = (await pollUntilDone(running.url, id, '&include=all')).body;
    const bravo = all.results.find((r: { platformId: string }) => r.platformId === 'bravo');
    expect(bravo).toMatchObject({ status: 'hit', linkedFrom: ['alpha'] });
    expect(all.results.find((r: { platformId: string }) => r.platformId === 'alpha').status).toBe('hit');
    expect(all.results).toHaveLength(2);
    // Its failure was stored first, then replaced: the later answer has a seq after Alpha's, and seq 1 is gone.
    const stored = await running.service.store.listOutcomes(id);
    expect(stored.map((s) => [s.seq, s.outcome.platformId, s.outcome.status])).toEqual([
      [2, 'alpha', 'hit'],
      [3, 'bravo', 'hit'],
    ]);
    expect(await running.service.store.progress(id)).toMatchObject({ checked: 2, hits: 2 });
    // Checked once more, no more: failed answers first (retries), then one normal answer.
    expect(bravoAnswers.at(-1)).toBe(200);
    expect(bravoAnswers.filter((status) => status === 200)).toHaveLength(1);
    expect(bravoAnswers[0]).toBe(500);
    // Both checks were noted in Bravo's statistics (the one recorded before, then two).
    const stats = await running.service.store.platformStats();
    expect(stats.find((s) => s.platformId === 'bravo')?.checks).toBe(3);
  });
});
