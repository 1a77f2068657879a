/**
 * How the browser transport reads a page, with Debian's Chromium: a challenge's reload
 * answered late is waited for, through a redirect too; a navigation that never commits is
 * waited for only until it ends, and its answer is not taken for the page's; one that never
 * answers is stopped and the page read as it stood; a challenge whose script works for a
 * while before it reloads is waited for, and one that never moves on is waited for a while
 * and read as the challenge; a page that reloads while it is read is read again once it
 * settles. Apart from browser-robustness.test.ts, whose deadlines are tighter, so the two
 * files run side by side.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_CHALLENGE_WAIT_MS } from '../../src/tuning.js';
import {
  browserFixture,
  hasBrowser,
  LATE_REDIRECT,
  LATE_RELOAD,
  NO_COMMIT,
  RACING,
  STALLED,
  STUCK,
  WORKING,
} from './browser-fixture.js';

describe.runIf(hasBrowser)('the browser transport reading a page', () => {
  const { platform, engine } = browserFixture();

  it('reads the page behind a challenge once its reload is answered, however late', async () => {
    const { engine: reading } = engine({ controlWindowMs: 0 });
    // The reload, started a moment after the load, is answered two seconds later: past the settling time.
    for (const [name, status] of [
      ['slow-alice', 'hit'],
      ['slow-nobody-7', 'miss'],
    ] as const)
      expect(await reading.check(platform(LATE_RELOAD), name)).toMatchObject({
        status,
        evidence: { transport: 'browser' },
      });
  }, 120_000);

  it('waits for a challenge whose script works longer than a page takes to settle, and reads the page it leads to', async () => {
    const { engine: reading } = engine({ controlWindowMs: 0 });
    for (const [name, status] of [
      ['alice', 'hit'],
      ['nobody-here-7', 'miss'],
    ] as const)
      expect(await reading.check(platform(WORKING), name)).toMatchObject({
        status,
        evidence: { transport: 'browser', finalUrl: `https://${WORKING}/u/${name}` },
      });
  }, 120_000);

  it('reads a page again once it settles anew when its script reloads it while it is read', async () => {
    const { engine: reading } = engine({ controlWindowMs: 0 });
    // Each reloads about when its page, settled, is read: the read meets the navigation.
    const outcomes = [];
    for (let ms = 420; ms <= 560; ms += 20) outcomes.push(await reading.check(platform(RACING), `r${ms}`));
    expect(outcomes.map((o) => `${o.url}: ${o.status}/${o.reason ?? ''}`)).toEqual(
      outcomes.map((o) => `${o.url}: hit/`),
    );
  }, 120_000);

  it('waits a while for a challenge that never moves on, then reads it as the challenge, before the deadline', async () => {
    const timeoutMs = 30_000;
    const { engine: reading } = engine({ timeoutMs, controlWindowMs: 0 });
    const stuck = await reading.check(platform(STUCK), 'alice');
    expect(stuck).toMatchObject({
      status: 'unknown',
      reason: 'waf',
      evidence: { transport: 'browser', httpStatus: 403, rule: 'shield: cloudflare-mitigated' },
    });
    // Waited for the page to move on, and let go of it at the end of that wait, not at the deadline.
    expect(stuck.responseTime).toBeGreaterThanOrEqual(BROWSER_CHALLENGE_WAIT_MS);
    expect(stuck.responseTime).toBeLessThan(timeoutMs);
  }, 60_000);

  it('follows a late navigation of the page through its redirect to the page it leads to', async () => {
    const { engine: reading } = engine({ controlWindowMs: 0 });
    expect(await reading.check(platform(LATE_REDIRECT), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'browser', httpStatus: 200, finalUrl: `https://${LATE_REDIRECT}/u/alice` },
    });
  }, 60_000);

  it('reads a page whose own navigation never commits (a 204) as the page it stayed on', async () => {
    const { engine: reading } = engine({ timeoutMs: 10_000, controlWindowMs: 0 });
    expect(await reading.check(platform(NO_COMMIT), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'browser', httpStatus: 200 },
    });
    expect(await reading.check(platform(NO_COMMIT), 'nobody-here-7')).toMatchObject({
      status: 'miss',
      evidence: { httpStatus: 404 },
    });
  }, 60_000);

  it('stops a navigation of the page that never answers, and reads the page as it stood', async () => {
    // A deadline past the wait for a navigation: the check ends with the page, not at the deadline.
    const { engine: reading } = engine({ timeoutMs: 15_000, controlWindowMs: 0 });
    expect(await reading.check(platform(STALLED), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'browser', httpStatus: 200, finalUrl: `https://${STALLED}/u/alice` },
    });
  }, 60_000);
});
