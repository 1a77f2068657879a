/**
 * The browser budget of a site (USERSCOUT_BROWSER_CHECKS_PER_SITE_MINUTE) is kept per
 * host the browser loads: two platforms on one host share it, and the hosts of one
 * budget origin (a platform whose host holds the username) each have their own. Read
 * without Chromium: a check the budget lets through goes on to the launch, which finds
 * no browser (needs_browser); one it holds back never gets there.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/catalogue/platform.js';
import { browserSiteBudget } from '../../src/engine/browser-site-budget.js';
import { BrowserTransport } from '../../src/engine/transport/browser.js';
import { UNBOUNDED_SLOTS } from '../../src/engine/transport/browser-slots.js';
import { TransportTally } from '../../src/engine/transport/transport-tally.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE } from '../../src/engine/transport/transports.js';
import { buildRequest } from '../../src/engine/verdict/request.js';
import { LocalRateBudget } from '../../src/schedule/local-rate-budget.js';
import { budgetOrigin } from '../../src/schedule/politeness-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const catalogue = catalogueOf([
  entry('Shared Profiles', { home: 'https://shared.test/', profile: 'https://shared.test/u/{username}' }),
  entry('Shared Api', { home: 'https://shared.test/', profile: 'https://shared.test/api/users/{username}' }),
  entry('Blogs', { home: 'https://blog.test/', profile: 'https://{username}.blog.test/' }),
]);
const platform = (name: string): Platform => catalogue.platforms.find((p) => p.name === name)!;

describe('the browser budget of a site', () => {
  // One browser check a minute per site, on a clock that stands still: nothing refills.
  const transport = new BrowserTransport({
    gateways: [],
    executablePath: '/nonexistent/chromium',
    contexts: 8,
    browsers: 1,
    tally: new TransportTally(),
    clusterSlots: UNBOUNDED_SLOTS,
    clusterCap: 8,
    holdMs: 10_000,
    siteBudget: browserSiteBudget(new LocalRateBudget(() => 0), 1),
    ca: [],
    insecure: true,
  });
  afterAll(() => transport.close());

  /** The code a check of `username` on `name` ends with: how far it got. */
  const send = async (name: string, username: string): Promise<string> => {
    const built = buildRequest(platform(name), username, {});
    if (!built.ok) throw new Error(built.message);
    const options = {
      signal: AbortSignal.timeout(10_000),
      bodyCapBytes: 4096,
      maxRedirects: 0,
      decide: () => undefined,
    };
    return transport.exchange(0, built.request, options).then(
      () => 'sent',
      (error: { code?: string }) => String(error.code),
    );
  };

  it('is shared by two platforms on one host', async () => {
    expect(await send('Shared Profiles', 'alice')).toBe(NEEDS_BROWSER_CODE);
    expect(await send('Shared Api', 'bob')).toBe(BROWSER_HELD_BACK_CODE);
    expect(await send('Shared Profiles', 'carol')).toBe(BROWSER_HELD_BACK_CODE);
  });

  it('is not shared by two hosts under one budget origin', async () => {
    // One request budget for every account's host (politeness-bound.ts)...
    expect(budgetOrigin(platform('Blogs'))).toBe('{username}.blog.test');
    // ...but a browser budget for each host loaded.
    expect(await send('Blogs', 'alice')).toBe(NEEDS_BROWSER_CODE);
    expect(await send('Blogs', 'bob')).toBe(NEEDS_BROWSER_CODE);
    expect(await send('Blogs', 'alice')).toBe(BROWSER_HELD_BACK_CODE);
  });
});
