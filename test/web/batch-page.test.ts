/**
 * The page for many names (/batch.html) in headless Chromium against the real
 * service on the simulated web: a pasted list and a CSV file become one batch,
 * with one result table per name; a batch past the limit starts nothing.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsRun } from '../support/browser-guard.js';
import { type RunningService, startService } from '../support/service.js';
import {
  ALICE,
  buildWebPage,
  CHROMIUM,
  launchBrowser,
  SERVICE_SETTINGS,
  startWebFixture,
  type WebFixture,
} from './support.js';

const FINISH_MS = 20_000;
const noBrowser = !browserTestsRun(existsSync(CHROMIUM));
const BOB_HITS = ['Chirper', 'ClipCity', 'GitPlace', 'Hashbook'];

let fixture: WebFixture;
let webDir: string;
let browser: Browser;
let context: BrowserContext | undefined;
let problems: string[] = [];
const running: RunningService[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  [fixture, webDir, browser] = await Promise.all([startWebFixture(), buildWebPage(), launchBrowser()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.sim.stop();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  for (const s of running.splice(0)) await s.service.close();
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function openBatchPage(overrides: Record<string, unknown> = {}): Promise<Page> {
  const service = await startService(fixture.sim, fixture.catalogue, {
    ...SERVICE_SETTINGS,
    webDir,
    ...overrides,
  });
  running.push(service);
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(`${service.url}/batch.html`);
  return page;
}

/** The platforms in one name's table, once its search has finished. */
async function finishedHits(page: Page, username: string): Promise<string[]> {
  const section = page.locator(`section[data-username="${username}"]`);
  await section.getByRole('status').filter({ hasText: 'Finished' }).waitFor({ timeout: FINISH_MS });
  return (await section.locator('tbody tr td:first-child').allTextContents()).sort();
}

describe.skipIf(noBrowser)('the page for many names', () => {
  it('searches a pasted list and shows one result table per name', async () => {
    const page = await openBatchPage();
    await page.getByLabel('Usernames').fill('alice\nbob, alice');
    await page.getByRole('button', { name: 'Search all' }).click();
    await expect
      .poll(() => page.locator('section.batch-result h2').allTextContents())
      .toEqual(['Results for “alice”', 'Results for “bob”']);
    expect(await finishedHits(page, 'alice')).toEqual(ALICE.hits);
    expect(await finishedHits(page, 'bob')).toEqual(BOB_HITS);
    await expect
      .poll(() => page.locator('#batch-status').textContent())
      .toMatch(/Started 2 searches; 8 left in this window\. All finished\./);
    const link = page.locator('section[data-username="bob"] tbody a').first();
    expect(await link.getAttribute('href')).toMatch(/^https:\/\//);
  }, 60_000);

  it('reads the names from a CSV file, and says so when the limit does not hold them all', async () => {
    const page = await openBatchPage({ freeLimit: 1 });
    await page.getByLabel(/Or a CSV file/).setInputFiles({
      name: 'brands.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('username,notes\nalice,main\n"bob",second\n'),
    });
    await expect.poll(() => page.getByLabel('Usernames').inputValue()).toBe('alice\nbob');
    await expect
      .poll(() => page.locator('#batch-status').textContent())
      .toBe('2 names read from brands.csv.');
    await page.getByRole('button', { name: 'Search all' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: FINISH_MS });
    expect(await alert.textContent()).toMatch(/needs 2; 1 left, none started/);
    expect(await page.locator('section.batch-result').count()).toBe(0);
  }, 60_000);
});
