/**
 * The web page in real headless Chromium against the real service, which
 * checks a small catalogue on the simulated web: search, live progress,
 * filters, all outcomes, export, shareable link, errors, API key, rate limit.
 */

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { CONTENT_SECURITY_POLICY } from '../../src/api/web-page.js';
import { browserTestsRun } from '../support/browser-guard.js';
import { json, pollUntilDone, postSearch, type RunningService, startService } from '../support/service.js';
import {
  ALICE,
  buildWebPage,
  CHROMIUM,
  launchBrowser,
  SERVICE_SETTINGS,
  screenshot,
  startUnreachableFixture,
  startWebFixture,
  UNREACHABLE,
  type WebFixture,
} from './support.js';

const FINISH_MS = 20_000;
const noBrowser = !browserTestsRun(existsSync(CHROMIUM));

let fixture: WebFixture;
let webDir: string;
let browser: Browser;

beforeAll(async () => {
  if (noBrowser) return;
  [fixture, webDir, browser] = await Promise.all([startWebFixture(), buildWebPage(), launchBrowser()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.sim.stop();
});

/** A fresh browser context per test; console errors and CSP violations fail the test. */
let context: BrowserContext | undefined;
let problems: string[] = [];
async function openPage(
  url: string,
  options: { viewport?: { width: number; height: number }; noEventSource?: boolean } = {},
): Promise<Page> {
  context = await browser.newContext({
    viewport: options.viewport ?? { width: 1200, height: 900 },
    acceptDownloads: true,
  });
  if (options.noEventSource) {
    await context.addInitScript(() => {
      Reflect.deleteProperty(window, 'EventSource');
    });
  }
  const page = await context.newPage();
  page.on('console', (message) => {
    // Failed fetches the test provokes on purpose are logged by Chromium as errors; they are not page bugs.
    if (
      message.type() === 'error' &&
      !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(message.text())
    )
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(url);
  return page;
}

afterEach(async () => {
  await context?.close();
  context = undefined;
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function search(page: Page, username: string): Promise<void> {
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

/**
 * Waits until the page shows a finished search; with `username`, that search's, so a
 * "Finished." left on screen by the previous search is not taken for the new one.
 */
async function waitFinished(page: Page, username?: string): Promise<void> {
  if (username !== undefined) {
    await page
      .locator('#status-heading', { hasText: `Results for “${username}”` })
      .waitFor({ timeout: FINISH_MS });
  }
  await page.locator('#status-line', { hasText: 'Finished.' }).waitFor({ timeout: FINISH_MS });
}

/** The rows of an RFC 4180 text whose every line ends with CRLF. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') cell += ch;
      else if (text[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

async function shownPlatforms(page: Page): Promise<string[]> {
  return page.locator('#results-body tr th').allTextContents();
}

describe.skipIf(noBrowser)('the search page', () => {
  let running: RunningService;

  beforeAll(async () => {
    running = await startService(fixture.sim, fixture.catalogue, { ...SERVICE_SETTINGS, webDir });
  });
  afterAll(async () => {
    await running?.service.close();
  });

  it('is served with a strict Content-Security-Policy and no third-party resource', async () => {
    const response = await fetch(`${running.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//); // nothing from another origin
    const platforms = await fetch(`${running.url}/platforms.html`);
    expect(platforms.status).toBe(200);
    expect(platforms.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    // The API keeps its own 404 body.
    const missing = await json(`${running.url}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });

  it('refuses a bad username with the API rule before sending anything', async () => {
    const page = await openPage(running.url);
    const posts: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && posts.push(r.url()));
    for (const [name, says] of [
      ['al ice', 'must not contain spaces'],
      ['a/b', 'must not contain "/"'],
      ['..', 'must not consist of dots only'],
      ['', 'must not be empty'],
      ['x'.repeat(101), 'at most 100 characters'],
    ] as const) {
      await search(page, name);
      await expect.poll(() => page.locator('#username-error').textContent()).toContain(says);
      expect(await page.getByLabel('Username', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    }
    await screenshot(page, 'invalid-username.png');
    expect(posts).toEqual([]);
    // Correcting the name clears the message.
    await page.getByLabel('Username', { exact: true }).fill('alice');
    await expect.poll(() => page.locator('#username-error').isHidden()).toBe(true);
  });

  it('searches a name live to 100% and shows exactly the hits, with safe profile links', async () => {
    const page = await openPage(running.url);
    const events: string[] = [];
    page.on('request', (r) => r.url().includes('/events') && events.push(r.url()));
    await page.getByLabel('Username', { exact: true }).focus();
    await page.keyboard.type('alice');
    await page.keyboard.press('Enter');
    await page.locator('#status-heading', { hasText: '“alice”' }).waitFor();
    await screenshot(page, 'search-running.png');
    await waitFinished(page);

    expect(await page.locator('#progress').evaluate((p) => (p as HTMLProgressElement).value)).toBe(100);
    expect(await page.locator('#percent').textContent()).toBe('100%');
    expect(await page.locator('#checked').textContent()).toBe(`${ALICE.total} / ${ALICE.total}`);
    expect(await page.locator('#hits').textContent()).toBe(String(ALICE.hits.length));
    expect(await page.locator('#remaining').textContent()).toBe('done');
    expect(await page.locator('#elapsed').textContent()).toMatch(/^\d+ s$/);
    expect(await shownPlatforms(page)).toEqual(ALICE.hits);
    expect(await page.locator('#live').textContent()).toBe(
      `Search finished: ${ALICE.hits.length} hits on ${ALICE.total} platforms.`,
    );
    expect(events.length).toBeGreaterThan(0); // followed over Server-Sent Events

    const links = page.locator('#results-body a');
    expect(await links.count()).toBe(ALICE.hits.length);
    for (const link of await links.all()) {
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await link.getAttribute('href')).toMatch(/^https:\/\/[a-z-]+\.test\/u\/alice$/);
    }
    expect(await page.locator('#results-body tr[data-platform="GitPlace"] td').nth(3).textContent()).toBe(
      'Open profile on GitPlace (opens in a new tab)',
    );
    // The address now reopens this search.
    const id = new URL(page.url()).searchParams.get('id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.locator('#share-url').inputValue()).toBe(`${running.url}/?id=${id}`);
    await screenshot(page, 'search-finished.png', { fullPage: true });
  });

  it('filters by category, outcome and name, sorts, shows every outcome and exports them', async () => {
    const page = await openPage(running.url);
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    const id = new URL(page.url()).searchParams.get('id')!;
    const api = await json(`${running.url}/api/search?id=${id}&include=all`);
    const all = api.body.results as {
      platform: string;
      status: string;
      reason?: string;
      responseTime: number;
      evidence: { httpStatus?: number; rule: string };
    }[];

    await page.getByLabel('Category').selectOption('coding');
    await expect.poll(() => shownPlatforms(page)).toEqual(['CodeNest', 'GitPlace']);
    await page.getByLabel('Platform name').fill('git');
    await expect.poll(() => shownPlatforms(page)).toEqual(['GitPlace']);
    await page.getByLabel('Platform name').fill('');
    await page.getByLabel('Category').selectOption('');

    // Outcome filter only applies with every outcome shown.
    expect(await page.getByLabel('Outcome', { exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Show every outcome (not only hits)').check();
    await expect.poll(() => page.locator('#results-body tr').count()).toBe(ALICE.total);
    const rowOf = (name: string) => page.locator(`#results-body tr[data-platform="${name}"]`);
    expect(await rowOf('ShieldedSocial').getAttribute('data-status')).toBe('unknown');
    expect(await rowOf('ShieldedSocial').textContent()).toContain('Could not tell (blocked by a bot shield)');
    expect(await rowOf('DeadHost').textContent()).toContain('No answer (connection failed)');
    expect(await rowOf('LongNames').textContent()).toContain(
      "Name not allowed (breaks the platform's username rule)",
    );
    expect(await rowOf('Friendlink').textContent()).toContain('Not there');
    await screenshot(page, 'all-outcomes.png', { fullPage: true });

    await page.getByLabel('Outcome', { exact: true }).selectOption('miss');
    const misses = all.filter((r) => r.status === 'miss').map((r) => r.platform);
    await expect.poll(() => shownPlatforms(page)).toEqual(misses);
    expect(misses.length).toBe(ALICE.total - ALICE.hits.length - 3);
    await page.getByLabel('Outcome', { exact: true }).selectOption('');

    await page.getByLabel('Sort by').selectOption('responseTime');
    const byTime = [...all]
      .sort(
        (a, b) =>
          a.responseTime - b.responseTime ||
          a.platform.localeCompare(b.platform, 'en', { sensitivity: 'base' }),
      )
      .map((r) => r.platform);
    await expect.poll(() => shownPlatforms(page)).toEqual(byTime);

    // CSV of what is shown: every outcome, sorted by response time.
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(csvDownload.suggestedFilename()).toMatch(/^userscout-alice-\d{4}-\d\d-\d\d\.csv$/);
    const csv = await readFile((await csvDownload.path())!, 'utf8');
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = csvRows(csv);
    expect(rows[0]!.join(',')).toBe(
      'username,platform,category,status,reason,responseTime,url,httpStatus,rule',
    );
    expect(rows.slice(1).map((r) => r[1])).toEqual(byTime);
    for (const [user, platform, , status, reason, ms, url, httpStatus, rule] of rows.slice(1)) {
      const truth = all.find((r) => r.platform === platform)!;
      expect([user, status, reason || undefined, Number(ms)]).toEqual([
        'alice',
        truth.status,
        truth.reason,
        truth.responseTime,
      ]);
      expect(url).toMatch(/^https:\/\//);
      expect([httpStatus, rule]).toEqual([String(truth.evidence.httpStatus ?? ''), truth.evidence.rule]);
    }

    // JSON of hits in one category.
    await page.getByLabel('Show every outcome (not only hits)').uncheck();
    await page.getByLabel('Category').selectOption('social');
    const [jsonDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const exported = JSON.parse(await readFile((await jsonDownload.path())!, 'utf8'));
    expect(exported.queryId).toBe(id);
    expect(exported.username).toBe('alice');
    expect(exported.status).toBe('completed');
    expect(exported.results.map((r: { platform: string }) => r.platform).sort()).toEqual([
      'Chirper',
      'Photogram',
    ]);

    // The report of the whole search, from the service.
    const report = page.getByRole('link', { name: 'Report' });
    expect(await report.getAttribute('href')).toBe(`/api/search/${id}/report.html`);
    const html = await (await fetch(new URL((await report.getAttribute('href'))!, running.url))).text();
    expect(html).toContain('<h1>userscout report: alice</h1>');
    // Beside it, the same report as a PDF, and the search's graph.
    expect(await page.getByRole('link', { name: 'PDF' }).getAttribute('href')).toBe(
      `/api/search/${id}/report.pdf`,
    );
    expect(await page.getByRole('link', { name: 'GraphML' }).getAttribute('href')).toBe(
      `/api/search/${id}/graph.graphml`,
    );
  });

  it('reopens a finished search from its link, and a running one that then finishes', async () => {
    const started = await postSearch(running.url, { username: 'alice' });
    await pollUntilDone(running.url, started.body.queryId);
    const finished = await openPage(`${running.url}/?id=${started.body.queryId}`);
    await waitFinished(finished);
    expect(await shownPlatforms(finished)).toEqual(ALICE.hits);
    expect(await finished.getByLabel('Username', { exact: true }).inputValue()).toBe('alice');
    await context?.close();

    // 'slowbob' keeps SlowSite busy for seconds: the link opens while the search runs.
    const slow = await postSearch(running.url, { username: 'slowbob' });
    const page = await openPage(`${running.url}/?id=${slow.body.queryId}`);
    await page.locator('#status-heading', { hasText: 'Searching “slowbob”' }).waitFor();
    expect(await page.locator('#status-line').textContent()).toMatch(/Running|Waiting/);
    await waitFinished(page);
    expect(await page.locator('#checked').textContent()).toBe(`${ALICE.total} / ${ALICE.total}`);
    expect(await shownPlatforms(page)).toEqual([]);
    expect(await page.locator('#no-results').textContent()).toMatch(
      /^No hits among the platforms that answered/,
    );
  });

  it('falls back to polling once a second when EventSource is missing', async () => {
    const page = await openPage(running.url, { noEventSource: true });
    const polls: number[] = [];
    page.on('request', (r) => r.url().includes('/api/search?id=') && polls.push(Date.now()));
    await search(page, 'slowalice');
    await page.locator('#status-line', { hasText: 'checking every second' }).waitFor();
    await waitFinished(page, 'slowalice');
    expect(await page.locator('#percent').textContent()).toBe('100%');
    expect(polls.length).toBeGreaterThanOrEqual(3);
    const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
    expect(Math.min(...gaps.slice(1))).toBeGreaterThanOrEqual(900);
  });

  it('says when a search id is unknown or malformed', async () => {
    const page = await openPage(`${running.url}/?id=${randomUUID()}`);
    await page.locator('#alert', { hasText: 'No search has this id' }).waitFor();
    expect(await page.locator('#status-panel').isHidden()).toBe(true);
    await screenshot(page, 'unknown-id.png');
    await page.goto(`${running.url}/?id=not-an-id`);
    await page.locator('#alert', { hasText: 'does not hold a valid search id' }).waitFor();
  });

  it('shows a network failure with a retry button that works', async () => {
    const page = await openPage(running.url);
    await page.route('**/api/search', (route) =>
      route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue(),
    );
    await search(page, 'alice');
    await page.locator('#alert', { hasText: 'Network problem' }).waitFor();
    const retry = page.getByRole('button', { name: 'Retry' });
    expect(await retry.isVisible()).toBe(true);
    await screenshot(page, 'network-error.png');
    await page.unroute('**/api/search');
    await retry.click();
    await waitFinished(page, 'alice');
    expect(await page.locator('#alert').isHidden()).toBe(true);
    expect(await shownPlatforms(page)).toEqual(ALICE.hits);
  });

  it('keeps an API key in local storage, sends it in a header and shows the tier and searches left', async () => {
    const key = 'us_test_professional_key_0123456789';
    await running.service.store.createApiKey({
      id: 'web-test',
      name: 'web test',
      tier: 'professional',
      hash: hashApiKey(key),
      createdAt: Date.now(),
    });
    const page = await openPage(running.url);
    expect(await page.locator('#tier').textContent()).toBe('free');
    await page.getByText('Professional API key').click();
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.locator('#tier', { hasText: 'professional' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('userscout.apiKey'))).toBe(key);

    const sent: (string | undefined)[] = [];
    page.on('request', (r) => r.method() === 'POST' && sent.push(r.headers()['x-api-key']));
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    expect(sent).toEqual([key]);
    expect(page.url()).not.toContain(key);
    expect(await page.locator('#share-url').inputValue()).not.toContain(key);
    expect(await page.locator('#quota').textContent()).toMatch(
      new RegExp(
        `^· ${running.config.proLimit - 1} of ${running.config.proLimit} searches left; the count resets in `,
      ),
    );

    // Still there after a reload; a wrong key is reported; forgetting returns to the free tier.
    await page.reload();
    await page.locator('#tier', { hasText: 'professional' }).waitFor();
    await page.getByText('Professional API key').click();
    await page.getByLabel('API key', { exact: true }).fill('not-a-key');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.locator('#key-status', { hasText: 'unknown or revoked' }).waitFor();
    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await page.locator('#tier').textContent()).toBe('free');
    expect(await page.evaluate(() => localStorage.getItem('userscout.apiKey'))).toBeNull();
  });

  it('shows the tier the service reports for a key, not the one it guesses', async () => {
    const key = 'us_test_free_tier_key_0123456789ab';
    await running.service.store.createApiKey({
      id: 'web-test-free',
      name: 'web test free',
      tier: 'free',
      hash: hashApiKey(key),
      createdAt: Date.now(),
    });
    const page = await openPage(running.url);
    await page.getByText('Professional API key').click();
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.locator('#key-status', { hasText: 'Key accepted' }).waitFor();
    expect(await page.locator('#tier').textContent()).toBe('free (API key)');
  });

  it('lists the platforms by category with counts', async () => {
    const page = await openPage(`${running.url}/platforms.html`);
    await page.locator('#summary', { hasText: 'platforms in' }).waitFor();
    const total = Object.values(fixture.categories).reduce((a, b) => a + b, 0);
    expect(await page.locator('#summary').textContent()).toBe(
      `${total} platforms in ${Object.keys(fixture.categories).length} categories; ${total} enabled.`,
    );
    for (const [category, count] of Object.entries(fixture.categories)) {
      expect(await page.locator(`#heading-${category}`).textContent()).toBe(
        `${category} ${count} ${count === 1 ? 'platform' : 'platforms'}`,
      );
      expect(await page.locator(`#category-${category} li`).count()).toBe(count);
    }
    await screenshot(page, 'platforms.png', { fullPage: true });
    await page.getByLabel('Find a platform').fill('git');
    await expect.poll(() => page.locator('#categories li').allTextContents()).toEqual(['GitPlace']);
  });

  it('fits a phone-sized screen', async () => {
    const page = await openPage(running.url, { viewport: { width: 375, height: 740 } });
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    await page.getByLabel('Show every outcome (not only hits)').check();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone.png', { fullPage: true });
  });
});

describe.skipIf(noBrowser)('the free limit', () => {
  let running: RunningService;

  beforeAll(async () => {
    running = await startService(fixture.sim, fixture.catalogue, {
      ...SERVICE_SETTINGS,
      webDir,
      freeLimit: 2,
    });
  });
  afterAll(async () => {
    await running?.service.close();
  });

  it('shows searches left, then a 429 message saying when to retry', async () => {
    const page = await openPage(running.url);
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    expect(await page.locator('#quota').textContent()).toMatch(/^· 1 of 2 searches left/);
    await search(page, 'bob');
    await waitFinished(page, 'bob');
    expect(await shownPlatforms(page)).toEqual(['Chirper', 'ClipCity', 'GitPlace', 'Hashbook']);
    expect(await page.locator('#quota').textContent()).toMatch(/^· 0 of 2 searches left/);
    await search(page, 'carol');
    const alert = page.locator('#alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('Search limit reached');
    expect(text).toMatch(/You can search again at .+ \(in \d+ min \d\d s\)\./);
    expect(text).not.toMatch(/Retry in/);
    // One reading, two lines that agree and count down together.
    const readBoth = () =>
      page.evaluate(() => [
        document.querySelector('#alert-text')?.textContent ?? '',
        document.querySelector('#quota')?.textContent ?? '',
      ]);
    const seconds = (s: string | undefined) => {
      if (s === undefined) return Number.NaN;
      const m = /in (\d+) min (\d\d) s/.exec(s);
      return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
    };
    const [alertBefore, quotaBefore] = await readBoth();
    expect(quotaBefore).toMatch(/^· 0 of 2 searches left; the count resets in \d+ min \d\d s$/);
    await expect
      .poll(async () => seconds((await readBoth())[1]), { timeout: 5000 })
      .toBeLessThan(seconds(quotaBefore));
    await expect
      .poll(async () => seconds((await readBoth())[0]), { timeout: 5000 })
      .toBeLessThan(seconds(alertBefore));
    const [alertNow, quotaNow] = await readBoth();
    expect(Math.abs(seconds(alertNow) - seconds(quotaNow))).toBeLessThanOrEqual(1);
    expect(await page.getByRole('button', { name: 'Retry' }).isHidden()).toBe(true);
    // The finished search stays on screen.
    expect(await shownPlatforms(page)).toEqual(['Chirper', 'ClipCity', 'GitPlace', 'Hashbook']);
    await screenshot(page, 'rate-limited.png');
  });
});

describe.skipIf(noBrowser)('an honest summary when most platforms do not answer', () => {
  let unreachable: WebFixture;
  let running: RunningService;

  beforeAll(async () => {
    unreachable = await startUnreachableFixture();
    running = await startService(unreachable.sim, unreachable.catalogue, {
      ...SERVICE_SETTINGS,
      timeoutMs: UNREACHABLE.timeoutMs,
      webDir,
      freeLimit: 50,
    });
  });
  afterAll(async () => {
    await running?.service.close();
    await unreachable?.sim.stop();
  });

  const notAnswered = UNREACHABLE.total - UNREACHABLE.answering.length;
  const refused = notAnswered - UNREACHABLE.hanging;
  /** A finished search of alice here, once a test ran one: each waits out the hanging platforms' deadline. */
  let aliceSearch: string | undefined;
  /** The id of a finished search of alice: the one a test ran, or a new one through the API. */
  async function finishedAliceSearch(): Promise<string> {
    if (aliceSearch === undefined) {
      const started = await postSearch(running.url, { username: 'alice' });
      await pollUntilDone(running.url, started.body.queryId);
      aliceSearch = started.body.queryId as string;
    }
    return aliceSearch;
  }

  it('says how many answered, never "no platform has this username"', async () => {
    const page = await openPage(running.url);
    await search(page, 'nobody');
    await waitFinished(page, 'nobody');
    expect(await page.locator('#status-line').textContent()).toBe('Finished.');
    expect(await page.locator('#answered').textContent()).toBe(
      `${UNREACHABLE.answering.length} / ${UNREACHABLE.total}`,
    );
    // The service marks 3 of 60 low: the summary is its warning, after the hits.
    await page.locator('#summary[data-low="true"]').waitFor();
    expect(await page.locator('#summary').textContent()).toBe(
      `No hits. Only ${UNREACHABLE.answering.length} of ${UNREACHABLE.total} platforms answered; ${notAnswered} could not be reached or could not tell (connection ${refused}, timeout ${UNREACHABLE.hanging}). A missing hit on those proves nothing.`,
    );
    const empty = (await page.locator('#no-results').textContent()) ?? '';
    expect(empty).toMatch(/^No hits among the platforms that answered \(the summary above counts them\)/);
    expect(await page.locator('body').textContent()).not.toContain('no platform checked has this username');
    await screenshot(page, 'low-coverage.png', { fullPage: true });
  });

  it("shows the API's warning once, as the search's one summary", async () => {
    const warning = `Only 3 of 60 platforms answered; 57 could not be reached or could not tell (connection ${refused}, timeout ${UNREACHABLE.hanging}). A missing hit on those proves nothing.`;
    const page = await openPage(running.url);
    // The warning is the service's own (GET /api/search?id= gives it once the search is done).
    const seen: (string | undefined)[] = [];
    page.on('response', async (response) => {
      if (!response.url().includes('/api/search?id=')) return;
      seen.push(((await response.json()) as { warning?: string }).warning);
    });
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    const shown = page.locator('#summary[data-low="true"]');
    await shown.waitFor();
    expect(await shown.getAttribute('role')).toBe('alert');
    expect(await shown.textContent()).toBe(`1 hit. ${warning}`);
    expect(seen).toContain(warning);
    // One summary: the status line says only that it finished, and the counts are said once.
    expect(await page.locator('#status-line').textContent()).toBe('Finished.');
    const panel = (await page.locator('#status-panel').textContent()) ?? '';
    expect(panel.split('platforms answered').length - 1).toBe(1);
    expect(panel.split('could not be reached').length - 1).toBe(1);
    expect(await page.locator('[role="alert"]:visible').count()).toBe(1);
    expect(await shownPlatforms(page)).toEqual(UNREACHABLE.hits);
    await screenshot(page, 'low-coverage-warning.png');
    aliceSearch = new URL(page.url()).searchParams.get('id') ?? undefined;
  });

  it('pages the results 50 at a time, on a phone too', async () => {
    // Paging reads a finished search's results, as its link shows them on a phone.
    const id = await finishedAliceSearch();
    const page = await openPage(`${running.url}/?id=${id}`, { viewport: { width: 375, height: 740 } });
    await waitFinished(page, 'alice');
    const pager = page.locator('#pager');
    expect(await pager.isHidden()).toBe(true); // one hit: one page
    await page.getByLabel('Show every outcome (not only hits)').check();
    await expect.poll(() => page.locator('#results-body tr').count()).toBe(50);
    expect(await pager.isVisible()).toBe(true);
    expect(await page.locator('#page-status').textContent()).toBe('Page 1 of 2 (rows 1–50)');
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    const first = await shownPlatforms(page);
    expect(first[0]).toBe('Site 01');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect
      .poll(() => shownPlatforms(page))
      .toEqual(Array.from({ length: 10 }, (_, i) => `Site ${String(51 + i)}`));
    expect(await page.locator('#page-status').textContent()).toBe('Page 2 of 2 (rows 51–60)');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-paged.png', { fullPage: true });
    // A new filter starts again at the first page.
    await page.getByLabel('Category').selectOption('coding');
    await expect.poll(() => page.locator('#results-body tr').count()).toBe(UNREACHABLE.total / 4);
    expect(await pager.isHidden()).toBe(true);
  });
});

describe.skipIf(noBrowser)('row evidence, profile links and search options', () => {
  let running: RunningService;

  beforeAll(async () => {
    running = await startService(fixture.sim, fixture.catalogue, {
      ...SERVICE_SETTINGS,
      webDir,
      freeLimit: 50,
    });
  });
  afterAll(async () => {
    await running?.service.close();
  });

  it('links every row to the profile and opens its evidence from the keyboard', async () => {
    const page = await openPage(running.url);
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    const id = new URL(page.url()).searchParams.get('id')!;
    const api = await json(`${running.url}/api/search?id=${id}&include=all`);
    await page.getByLabel('Show every outcome (not only hits)').check();
    await expect.poll(() => page.locator('#results-body tr').count()).toBe(ALICE.total);

    // Every row, misses and non-answers too, links to the profile page, safely.
    for (const row of await page.locator('#results-body tr').all()) {
      const platform = await row.getAttribute('data-platform');
      const link = row.locator('a');
      expect(await link.count(), platform ?? '').toBe(1);
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await link.getAttribute('href')).toMatch(/^https:\/\/[a-z-]+\.test\/u\/alice$/);
      expect(await link.textContent()).toMatch(
        (await row.getAttribute('data-status')) === 'hit' ? /^Open profile on / : /^Check yourself on /,
      );
    }

    for (const name of ['GitPlace', 'Friendlink', 'DeadHost']) {
      const truth = (api.body.results as { platform: string; evidence: Record<string, unknown> }[]).find(
        (r) => r.platform === name,
      )!.evidence;
      const row = page.locator(`#results-body tr[data-platform="${name}"]`);
      const details = row.locator('details');
      expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await row.locator('summary').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      const terms = await details.locator('dt').allTextContents();
      const values = await details.locator('dd').allTextContents();
      const shown = Object.fromEntries(terms.map((t, i) => [t, values[i]]));
      expect(shown.Rule).toBe(truth.rule);
      expect(shown.Attempts).toBe(String(truth.attempts));
      expect(shown['HTTP status']).toBe(
        truth.httpStatus === undefined ? undefined : String(truth.httpStatus),
      );
      expect(shown['Final URL']).toBe(truth.finalUrl);
      expect(shown['Bytes read']).toBe(truth.bytesRead === undefined ? undefined : String(truth.bytesRead));
      expect(shown.Cached).toBe('no, checked for this search');
    }
    expect(await page.locator('#results-body tr[data-platform="GitPlace"] summary').textContent()).toBe(
      'Details of GitPlace',
    );
    await screenshot(page, 'row-details.png', { fullPage: true });
  });

  it('narrows a search to categories, named platforms, tags and NSFW', async () => {
    const page = await openPage(running.url);
    const bodies: unknown[] = [];
    page.on('request', (r) => r.method() === 'POST' && bodies.push(r.postDataJSON()));
    await page.getByText('Search options').click();
    const coding = page.getByLabel(`coding (${fixture.categories.coding})`);
    await coding.waitFor();
    await coding.check();
    expect(await page.locator('#options-summary').textContent()).toBe('(coding)');
    await search(page, 'alice');
    await waitFinished(page, 'alice');
    const codingPlatforms = ['CodeNest', 'Crates Test', 'GitPlace', 'Stackers'];
    expect(await page.locator('#checked').textContent()).toBe(
      `${codingPlatforms.length} / ${codingPlatforms.length}`,
    );
    await page.getByLabel('Show every outcome (not only hits)').check();
    await expect.poll(() => shownPlatforms(page)).toEqual(codingPlatforms);
    expect(bodies.at(-1)).toEqual({ username: 'alice', categories: ['coding'] });

    await coding.uncheck();
    await page.getByLabel('Only these platforms').fill(' GitPlace, Chirper ,');
    await page.getByLabel('Include NSFW platforms').check();
    await search(page, 'bob');
    await waitFinished(page, 'bob');
    await expect.poll(() => shownPlatforms(page)).toEqual(['Chirper', 'GitPlace']);
    expect(await page.locator('#checked').textContent()).toBe('2 / 2');
    expect(bodies.at(-1)).toEqual({ username: 'bob', platforms: ['GitPlace', 'Chirper'], includeNsfw: true });

    await page.getByLabel('Only these platforms').fill('');
    await page.getByLabel('Only these tags').fill('git, ');
    expect(await page.locator('#options-summary').textContent()).toBe(
      '(all categories; tagged git; NSFW included)',
    );
    await search(page, 'carol');
    await waitFinished(page, 'carol');
    await expect.poll(() => shownPlatforms(page)).toEqual(['CodeNest', 'GitPlace']);
    expect(bodies.at(-1)).toEqual({ username: 'carol', tags: ['git'], includeNsfw: true });
    await screenshot(page, 'search-options.png', { fullPage: true });
  });
});
