/**
 * The web page and recursive searches, as a user clicks through them, in headless Chromium against
 * the real service on the simulated web: with "Follow up new names" ticked, the
 * finished search lists each new name its hits' profiles gave, the hit that led
 * to it, and a link that opens its search on the page.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUpId } from '../../src/api/follow-ups.js';
import { browserTestsRun } from '../support/browser-guard.js';
import { followUpsCatalogue, followUpsSim } from '../support/follow-ups-fixture.js';
import { type RunningService, startService } from '../support/service.js';
import { buildWebPage, CHROMIUM, launchBrowser, SERVICE_SETTINGS, screenshot } from './support.js';

const noBrowser = !browserTestsRun(existsSync(CHROMIUM));

describe.skipIf(noBrowser)('the search page and follow-up searches', () => {
  const sim = followUpsSim();
  let running: RunningService;
  let browser: Browser;
  let webDir: string;

  beforeAll(async () => {
    [webDir, browser] = await Promise.all([buildWebPage(), launchBrowser(), sim.start()]).then(
      ([dir, b]) => [dir, b] as const,
    );
    running = await startService(sim, followUpsCatalogue, { ...SERVICE_SETTINGS, webDir, freeLimit: 2 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await running?.service.close();
    await sim.stop();
  });

  it('lists the new names, the hit that led to each, and opens a follow-up from its link', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    try {
      const page = await context.newPage();
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(running.url);
      await page.locator('#search-options summary').click();
      await page.getByLabel('Follow up new names').check();
      await page.getByLabel('Username', { exact: true }).fill('alice');
      await page.getByRole('button', { name: 'Search', exact: true }).click();

      const items = page.locator('#follow-ups-list li');
      await items.nth(1).waitFor({ timeout: 20_000 });
      const id = new URL(page.url()).searchParams.get('id')!;
      expect(await page.locator('#follow-ups-status').textContent()).toBe(
        '2 new names found in the hits’ profiles; 1 searched.',
      );
      // The limit (2) held the search, and bob's; rabbit's was past it.
      expect(await items.allTextContents()).toEqual([
        'bob found in the hit on Alpha: open the search for bob',
        'rabbit found in the hit on Alpha: not searched (search limit reached)',
      ]);
      const bobLink = items.nth(0).locator('a');
      expect(await bobLink.getAttribute('href')).toBe(`/?id=${followUpId(id, 'bob')}`);
      await screenshot(page, 'follow-ups.png', { fullPage: true });

      await bobLink.click();
      await page.locator('#status-heading', { hasText: 'Results for “bob”' }).waitFor({ timeout: 20_000 });
      expect(new URL(page.url()).searchParams.get('id')).toBe(followUpId(id, 'bob'));
      // A follow-up is not recursive: it lists none.
      expect(await page.locator('#follow-ups').isHidden()).toBe(true);
    } finally {
      await context.close();
    }
    expect(problems).toEqual([]);
  });

  it('lists each name’s follow-ups on the batch page when asked', async () => {
    await running.service.close();
    running = await startService(sim, followUpsCatalogue, { ...SERVICE_SETTINGS, webDir, freeLimit: 10 });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    try {
      const page = await context.newPage();
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(`${running.url}/batch.html`);
      await page.getByLabel('Usernames').fill('alice\nbob');
      await page.getByLabel('Follow up new names').check();
      await page.getByRole('button', { name: 'Search all' }).click();
      const alice = page.locator('section[data-username="alice"] .follow-ups li');
      const bob = page.locator('section[data-username="bob"] .follow-ups li');
      await alice.nth(1).waitFor({ timeout: 20_000 });
      await bob.nth(0).waitFor({ timeout: 20_000 });
      expect(await alice.allTextContents()).toEqual([
        'bob found in the hit on Alpha: open the search for bob',
        'rabbit found in the hit on Alpha: open the search for rabbit',
      ]);
      expect(await bob.allTextContents()).toEqual([
        'carol found in the hit on Bravo: open the search for carol',
      ]);
      await screenshot(page, 'batch-follow-ups.png', { fullPage: true });
    } finally {
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});
