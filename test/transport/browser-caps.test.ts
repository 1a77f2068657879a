/**
 * The browser transport's caps, with Debian's Chromium: checks beyond the process's
 * browser slots or their site's browser budget end unknown, unsent; a check's deadline
 * starts once it holds a slot; an escalation so held back leaves the defence's answer,
 * saying why.
 */
import { describe, expect, it } from 'vitest';
import { TransportTally } from '../../src/engine/transport/transport-tally.js';
import { browserFixture, CHALLENGED, hasBrowser } from './browser-fixture.js';

describe.runIf(hasBrowser)('the browser transport at its caps', () => {
  const { sim, platform, engine } = browserFixture();

  it('holds a check back, unknown and unsent, when the process has no browser slot within its deadline', async () => {
    // Two engines over one tally: two search threads of one process, one context between them.
    const shared = new TransportTally();
    const { engine: holding } = engine({ timeoutMs: 6_000, browserContexts: 1 }, shared);
    const { engine: waiting } = engine({ timeoutMs: 1_500, browserContexts: 1 }, shared);
    const held = holding.check(platform('plain.test'), 'hang-2');
    await expect.poll(() => shared.contexts).toBe(1);
    const hitsBefore = sim.hits.get('other.test') ?? 0;
    const outcome = await waiting.check(platform('other.test'), 'alice');
    expect(outcome).toMatchObject({
      status: 'unknown',
      reason: 'budget_exhausted',
      evidence: { attempts: 0 },
    });
    expect(outcome.evidence.rule).toMatch(
      /no browser slot came free .*1 browser checks at once in this process/,
    );
    expect(sim.hits.get('other.test') ?? 0).toBe(hitsBefore);
    expect(shared.read()).toMatchObject({ slotWaits: 1, slotTimeouts: 1 });
    expect(await held).toMatchObject({ status: 'error', reason: 'timeout' });
    expect(shared.contexts).toBe(0);
  }, 120_000);

  it("starts a browser check's deadline once it holds a slot, not while it waits for one", async () => {
    // One context between two engines: the first holds it about 5 s (a page that never answers).
    const shared = new TransportTally();
    const { engine: holding } = engine({ timeoutMs: 5_000, browserContexts: 1 }, shared);
    // Its slot comes free once the held check ends and its tab closes: 2.5 s of room for that.
    const { engine: waiting } = engine({ timeoutMs: 7_500, browserContexts: 1 }, shared);
    // Each engine's browser launched first: a launch is the deadline's, and not what this reads.
    // On a loaded machine a launch can take the whole deadline: up to three tries.
    let warm = await waiting.check(platform('other.test'), 'alice');
    for (let tries = 1; tries < 3 && warm.status !== 'hit'; tries++)
      warm = await waiting.check(platform('other.test'), 'alice');
    expect(warm, JSON.stringify(warm)).toMatchObject({ status: 'hit' });
    const held = holding.check(platform('plain.test'), 'hang-3');
    await expect.poll(() => shared.contexts).toBe(1);
    // A page of 4 s after a wait of about 5 s: within a 7.5 s deadline only if the wait is not in it.
    const outcome = await waiting.check(platform('other.test'), 'slower-alice');
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'hit', evidence: { attempts: 1 } });
    expect(outcome.responseTime).toBeLessThan(7_500);
    expect(shared.read()).toMatchObject({ slotWaits: 1, slotTimeouts: 0 });
    expect(await held).toMatchObject({ status: 'error', reason: 'timeout' });
    expect(shared.contexts).toBe(0);
  }, 120_000);

  it("holds a check back, unknown and unsent, once its site's browser budget is spent", async () => {
    // No control checks: each would take a place in the site's browser budget too.
    const { engine: budgeted, tally } = engine({ browserChecksPerSiteMinute: 1, controlWindowMs: 0 });
    expect(await budgeted.check(platform('other.test'), 'alice')).toMatchObject({ status: 'hit' });
    const hitsBefore = sim.hits.get('other.test') ?? 0;
    const spent = await budgeted.check(platform('other.test'), 'nobody-here-7');
    expect(spent).toMatchObject({ status: 'unknown', reason: 'budget_exhausted', evidence: { attempts: 0 } });
    expect(spent.evidence.rule).toMatch(/browser budget of other\.test \(1 browser checks a minute/);
    expect(sim.hits.get('other.test') ?? 0).toBe(hitsBefore);
    // Another site's budget is its own.
    expect(await budgeted.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(tally.read().siteBudgetSpent).toBe(1);
  }, 120_000);

  it("leaves a defence's answer standing, saying why, when an escalation finds the site's browser budget spent", async () => {
    // Not remembering the browser, so the second check escalates again (a remembered one starts there).
    const { engine: escalating, tally } = engine({
      escalations: 10,
      browserChecksPerSiteMinute: 1,
      controlWindowMs: 0,
      transportMemoryTtlMs: 0,
    });
    // http and impersonate read the challenge; the browser gets past it.
    expect(await escalating.check(platform(CHALLENGED), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'browser' },
    });
    const spent = await escalating.check(platform(CHALLENGED), 'nobody-here-7');
    expect(spent).toMatchObject({ status: 'unknown', reason: 'waf', evidence: { transport: 'impersonate' } });
    expect(spent.evidence.rule).toMatch(
      /not tried through browser: the browser budget of challenged\.test \(1 browser checks a minute/,
    );
    expect(tally.read()).toMatchObject({ siteBudgetSpent: 1, launches: 1 });
  }, 120_000);
});
