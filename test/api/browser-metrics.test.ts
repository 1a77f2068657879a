/**
 * What browser checks cost, as the embedded service's /metrics tells it: the
 * checks run on the search thread, and its counts reach the main thread's
 * metrics through the memory they share.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '../../src/engine/transport/browser.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import {
  injectService,
  metricsText,
  pollUntilDone,
  postSearch,
  type RunningService,
} from '../support/service.js';

describe.runIf(findBrowser('') !== undefined)('browser checks in /metrics', () => {
  const sim = new SimWeb({
    routes: [
      {
        host: 'plain.test',
        handle: (req) =>
          req.path === '/u/alice'
            ? { kind: 'respond', status: 200, body: '<html><h1>alice</h1></html>' }
            : { kind: 'respond', status: 404, body: '<html>Not found</html>' },
      },
    ],
  });
  const catalogue = catalogueOf([
    entry('Plain browser', {
      home: 'https://plain.test/',
      profile: 'https://plain.test/u/{username}',
      transport: 'browser',
    }),
    entry('Plain http', { home: 'https://plain.test/', profile: 'https://plain.test/h/{username}' }),
  ]);
  let running: RunningService;

  beforeAll(async () => {
    await sim.start();
    // The browser cannot trust the sim's CA: it accepts its certificates. Room for Chromium's launch.
    running = await injectService(sim, catalogue, {
      insecureTls: true,
      timeoutMs: 30_000,
      searchThread: true,
    });
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('counts checks by transport, the browser launched, and no context left open but the idle tab', async () => {
    const started = await postSearch(running.url, { username: 'alice' });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(running.url, started.body.queryId, '&include=all', 100, 60_000);
    expect(done.body.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ platform: 'Plain browser', status: 'hit' }),
        expect.objectContaining({ platform: 'Plain http', status: 'miss' }),
      ]),
    );
    // The search's outcomes are counted (before they were stored, so by the time the search reads
    // completed); the hit's control check, which is no outcome of the search, is not one of them.
    const text = await metricsText(running.url);
    expect(text).toContain('userscout_transport_checks_total{transport="browser"} 1\n');
    expect(text).toMatch(/userscout_transport_checks_total\{transport="http"\} [1-9]/);
    expect(text).toContain('userscout_browser_launches_total 1');
    expect(text).toContain('userscout_browser_open{kind="context"} 0');
    // The tabs of the check and its control are kept, wiped, for the next browser checks.
    const pages = Number(/userscout_browser_open\{kind="page"\} (\d+)/.exec(text)?.[1]);
    const tabs = Number(/userscout_browser_tabs_opened_total (\d+)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBe(tabs);
    expect(text).toContain('userscout_browser_replacements_total{cause="crash"} 0');
  }, 90_000);

  it("launches one browser for the process's search threads together", async () => {
    // Two threads, each given a search at once (the one with the fewer running takes the next).
    const threads = await injectService(sim, catalogue, {
      insecureTls: true,
      timeoutMs: 30_000,
      searchThread: true,
      searchThreads: 2,
      browsers: 1,
    });
    try {
      const started = await Promise.all(
        ['alice', 'bob'].map((username) => postSearch(threads.url, { username })),
      );
      const done = await Promise.all(
        started.map((s) => pollUntilDone(threads.url, s.body.queryId, '&include=all', 100, 60_000)),
      );
      expect(
        done.map(
          (d) => d.body.results.find((r: { platform: string }) => r.platform === 'Plain browser')?.status,
        ),
      ).toEqual(['hit', 'miss']);
      const text = await metricsText(threads.url);
      expect(text).toContain('userscout_transport_checks_total{transport="browser"} 2\n');
      expect(text).toContain('userscout_browser_launches_total 1\n');
    } finally {
      await threads.service.close();
    }
  }, 90_000);
});
