/**
 * The watchlists page in headless Chromium against the real service: a key
 * holder saves the key, creates a watchlist, sees its first run, runs it
 * again and reads its changes and deliveries; without a key the page asks for one.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/cli/keys.js';
import { browserTestsRun } from '../support/browser-guard.js';
import { type RunningService, startService } from '../support/service.js';
import {
  buildWebPage,
  CHROMIUM,
  launchBrowser,
  SERVICE_SETTINGS,
  startWebFixture,
  type WebFixture,
} from './support.js';

const noBrowser = !browserTestsRun(existsSync(CHROMIUM));

let fixture: WebFixture;
let browser: Browser;
let running: RunningService;
let context: BrowserContext | undefined;
let problems: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  let webDir: string;
  [fixture, webDir, browser] = await Promise.all([startWebFixture(), buildWebPage(), launchBrowser()]);
  running = await startService(fixture.sim, fixture.catalogue, {
    ...SERVICE_SETTINGS,
    webDir,
    watchlistTickMs: 50,
  });
}, 90_000);

afterAll(async () => {
  await running?.service.close();
  await browser?.close();
  await fixture?.sim.stop();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function openPage(viewport = { width: 1200, height: 900 }): Promise<Page> {
  context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${running.url}/watchlists.html`);
  return page;
}

describe.skipIf(noBrowser)('the watchlists page', () => {
  it('asks for a key, then creates a watchlist, runs it and shows its changes and deliveries', {
    timeout: 90_000,
  }, async () => {
    const { key } = await createKey(running.service.store, 'page', 'professional');
    const page = await openPage();
    await page.locator('#key-status', { hasText: 'Save your API key' }).waitFor();
    await page.getByRole('textbox', { name: 'API key' }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.locator('#list-status', { hasText: 'No watchlist yet.' }).waitFor();

    await page.getByLabel('Names (one per line)').fill('alice\nbob');
    await page.getByLabel('Every (hours)').fill('6');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#secret', { hasText: 'Webhook secret, shown only now: whsec_' }).waitFor();
    const row = page.locator('#watchlists tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').nth(0).textContent()).toBe('alice, bob');
    expect(await row.locator('td').nth(1).textContent()).toBe('6 h');

    // The first run starts at once; the page follows it until it ends.
    const lastRun = () => row.locator('td').nth(3).textContent();
    await expect.poll(lastRun, { timeout: 30_000 }).toMatch(/^run 1: 0 changes/);
    await page.getByRole('button', { name: 'Run now' }).click();
    await expect.poll(lastRun, { timeout: 30_000 }).toMatch(/^run 2: 0 changes/);
    await page.getByRole('button', { name: 'Changes' }).click();
    await page.locator('#detail-heading', { hasText: 'Changes of alice, bob' }).waitFor();
    expect(await page.locator('#changes tbody').textContent()).toContain('No change yet');
    expect(await page.locator('#deliveries tbody').textContent()).toContain('No delivery yet.');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.locator('#list-status', { hasText: 'No watchlist yet.' }).waitFor();
  });

  it('fits a phone screen: wide tables scroll inside their panel', async () => {
    const { key } = await createKey(running.service.store, 'phone', 'professional');
    const created = await fetch(`${running.url}/api/watchlists`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        names: ['alice', 'a-rather-long-username-to-watch'],
        webhookUrl: 'https://hooks.example.com/a/rather/long/path/for/the/webhook',
      }),
    });
    expect(created.status).toBe(201);
    const page = await openPage({ width: 375, height: 740 });
    await page.getByRole('textbox', { name: 'API key' }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.locator('#list-status', { hasText: '1 watchlist.' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
