/**
 * A hit's profile in the page, in real headless Chromium against the real
 * service on the simulated web: its name, bio and place as text, its links
 * only when http(s) and never followed or given this page, no remote image,
 * and the accounts it is linked with as links to their rows, which bring a
 * row hidden by the filters back into view.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { browserTestsRun } from '../support/browser-guard.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { type RunningService, startService } from '../support/service.js';
import { buildWebPage, CHROMIUM, launchBrowser, SERVICE_SETTINGS } from './support.js';

const noBrowser = !browserTestsRun(existsSync(CHROMIUM));
const FINISH_MS = 20_000;

const attr = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const HOSTILE = '<img src=x onerror="window.__pwned = 1">';

// Alpha's page: a name, a bio with markup, a place, a picture, and links to Bravo's alice and Charlie's rabbit.
const alphaPage = `<!DOCTYPE html><html><head><title>alice on Alpha</title>
<meta property="og:title" content="Alice Liddell">
<meta property="og:description" content="${attr(`Explorer ${HOSTILE} of rabbit holes`)}">
<meta property="og:image" content="https://cdn.alpha.test/a.png">
<script type="application/ld+json">{"@type":"Person","name":"Alice Liddell","homeLocation":{"name":"Oxford"},"sameAs":["https://bravo.test/u/alice","https://charlie.test/u/rabbit"]}</script>
<link rel="me" href="javascript:alert(1)">
</head><body><h1>alice</h1></body></html>`;

const specs = [
  entry('Alpha'),
  entry('Bravo'),
  entry('Charlie', { known: { claimed: ['rabbit'], unclaimed: ['x-none-1'] } }),
];
const catalogue = catalogueOf(specs);
const override = (platform: { id: string }, username: string): Behaviour | undefined =>
  platform.id === 'alpha' && username === 'alice'
    ? { kind: 'respond', status: 200, headers: { 'content-type': 'text/html' }, body: alphaPage }
    : undefined;
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, {
    // alice exists on Alpha and Bravo; Charlie has only rabbit.
    accounts: (p) => (p.id === 'charlie' ? ['rabbit'] : ['alice']),
    override,
  }).routes,
});

let running: RunningService;
let browser: Browser;
let context: BrowserContext | undefined;
let problems: string[] = [];
let requests: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  await sim.start();
  const [webDir, launched] = await Promise.all([buildWebPage(), launchBrowser()]);
  browser = launched;
  running = await startService(sim, catalogue, { ...SERVICE_SETTINGS, webDir, freeLimit: 50 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.service.close();
  await sim.stop();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function searchAlice(): Promise<Page> {
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(running.url);
  await page.getByLabel('Username', { exact: true }).fill('alice');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('#status-heading', { hasText: 'Results for “alice”' }).waitFor({ timeout: FINISH_MS });
  await page.locator('#status-line', { hasText: 'Finished.' }).waitFor({ timeout: FINISH_MS });
  // The last read, with every outcome's links, has arrived once Alpha's profile shows.
  await page.locator('#row-alpha .profile').waitFor({ state: 'attached', timeout: FINISH_MS });
  return page;
}

/** The terms and values of a row's profile, opened from the keyboard when it is closed. */
async function profileOf(page: Page, platformId: string): Promise<Record<string, string>> {
  const row = page.locator(`#row-${platformId}`);
  await row.locator('summary').focus();
  // Opened already (a redraw keeps a row open): pressing Enter again would close it.
  if (!(await row.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)))
    await page.keyboard.press('Enter');
  await expect.poll(() => row.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
  const profile = row.locator('.profile');
  const terms = await profile.locator('dt').allTextContents();
  const values = await profile.locator('dd').allTextContents();
  return Object.fromEntries(terms.map((t, i) => [t, values[i]!]));
}

describe.skipIf(noBrowser)("a hit's profile in its row's details", () => {
  it('shows the details as text, links only http(s) pages safely, and loads no remote image', async () => {
    const page = await searchAlice();
    const shown = await profileOf(page, 'alpha');
    expect(shown).toMatchObject({
      Name: 'Alice Liddell',
      Location: 'Oxford',
      Links: 'https://bravo.test/u/alicehttps://charlie.test/u/rabbit',
      Picture: 'Open the profile picture',
      'Links to': 'Bravo',
    });
    // The bio is text: its markup (if any survived) is shown, never run or rendered.
    expect(shown.Bio).toMatch(/^Explorer .*of rabbit holes$/);
    const profile = page.locator('#row-alpha .profile');
    expect(await profile.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    const outside = profile.locator('a[target="_blank"]');
    expect(await outside.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))).toEqual([
      'https://bravo.test/u/alice',
      'https://charlie.test/u/rabbit',
      'https://cdn.alpha.test/a.png',
    ]);
    for (const a of await outside.all())
      expect(await a.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await profile.locator('a[href^="javascript:"]').count()).toBe(0);
    // Nothing was fetched from the profile's hosts: no avatar, no preview.
    expect(requests.filter((u) => !u.startsWith(running.url))).toEqual([]);

    // Bravo's alice is linked from Alpha, and says so, linking back.
    expect(await profileOf(page, 'bravo')).toMatchObject({ 'Linked from': 'Alpha' });
  }, 60_000);

  it("keeps a row's details open, and the keyboard where it was, when the table is redrawn", async () => {
    const page = await searchAlice();
    await profileOf(page, 'alpha');
    // Commit the filters (as leaving a field does), and wait until the table was drawn again (its count line is).
    const redraw = async () => {
      await page.evaluate(() => {
        (document.getElementById('shown-count')?.firstChild as unknown as { drawn: boolean }).drawn = true;
        document.getElementById('sort')?.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await expect
        .poll(() =>
          page.evaluate(
            () =>
              (document.getElementById('shown-count')?.firstChild as unknown as { drawn?: boolean } | null)
                ?.drawn,
          ),
        )
        .toBeUndefined();
    };
    const focus = () =>
      page.evaluate(() => {
        const active = document.activeElement;
        return `${active?.tagName} ${active?.getAttribute('href') ?? ''} ${active?.closest('tr')?.id}`;
      });
    await redraw();
    const open = (id: string) =>
      page.locator(`#row-${id} details`).evaluate((d) => (d as HTMLDetailsElement).open);
    expect(await open('alpha')).toBe(true);
    expect(await open('bravo')).toBe(false);
    expect(await focus()).toBe('SUMMARY  row-alpha');
    // The keyboard on a link in the details stays on that link: the row was not drawn anew.
    await page.locator('#row-alpha .profile a[href="#row-bravo"]').focus();
    await redraw();
    expect(await focus()).toBe('A #row-bravo row-alpha');
    // Closed by the user, it stays closed at the next redraw.
    await page.locator('#row-alpha summary').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => open('alpha')).toBe(false);
    await redraw();
    expect(await open('alpha')).toBe(false);
  }, 60_000);

  it("takes a linked account's link to its row, bringing it back when the filters hide it", async () => {
    const page = await searchAlice();
    await profileOf(page, 'alpha');
    const toBravo = page.locator('#row-alpha .profile a[href="#row-bravo"]');
    await toBravo.click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('row-bravo');

    // Only Alpha shown: the link clears the name filter and shows Bravo's row.
    await page.getByLabel('Platform name').fill('Alpha');
    // Leaving the field commits the filter (its change event redraws the rows) before a row is opened.
    await page.getByLabel('Platform name').blur();
    await expect.poll(() => page.locator('#results-body tr').count()).toBe(1);
    await profileOf(page, 'alpha');
    await page.locator('#row-alpha .profile a[href="#row-bravo"]').click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('row-bravo');
    expect(await page.getByLabel('Platform name').inputValue()).toBe('');
    expect(await page.locator('#results-body tr').count()).toBe(2);
  }, 60_000);
});
