import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { UNANSWERED_CONTROL_MS } from '../../tuning.js';
import type { Outcome } from '../verdict/outcome.js';
import { ControlGuard, type SentCheck } from './control-guard.js';
import { type ControlLedger, MemoryControlLedger } from './control-ledger.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;
const WINDOW = 30 * 60_000;

function sent(status: Outcome['status'], username: string): SentCheck {
  const url = `https://alpha.test/u/${username}`;
  return {
    outcome: {
      platform: 'Alpha',
      platformId: 'alpha',
      category: 'social',
      url,
      status,
      responseTime: 5,
      evidence: {
        rule: status === 'hit' ? 'exists: status 200' : 'missing: status 404',
        attempts: 1,
        httpStatus: 200,
      },
    },
    answer: { httpStatus: status === 'hit' ? 200 : 404, finalUrl: url, bodyLength: 100 },
  };
}

function guardOn(ledger: ControlLedger, clock: { now: number }) {
  return new ControlGuard({
    ledger,
    windowMs: WINDOW,
    waitMs: 2_000,
    pollMs: 5,
    clock: () => clock.now,
    random: Math.random,
  });
}

describe('ControlGuard', () => {
  it('is eager for every platform, none, or those a predicate names', () => {
    const [alpha, bravo] = catalogueOf([entry('Alpha'), entry('Bravo')]).platforms;
    const make = (eager?: boolean | ((p: typeof alpha) => boolean)) =>
      new ControlGuard({
        ledger: new MemoryControlLedger(),
        windowMs: WINDOW,
        waitMs: 2_000,
        clock: Date.now,
        random: Math.random,
        ...(eager !== undefined ? { eager: eager as never } : {}),
      });
    expect(make().eagerFor(alpha!)).toBe(false);
    expect(make(true).eagerFor(bravo!)).toBe(true);
    const slowAlpha = make((p) => p!.id === 'alpha');
    expect([slowAlpha.eagerFor(alpha!), slowAlpha.eagerFor(bravo!)]).toEqual([true, false]);
  });

  it('counts the identities a check could send a control through: none standing or being checked', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const eager = new ControlGuard({
      ledger: new MemoryControlLedger(),
      windowMs: WINDOW,
      waitMs: 2_000,
      clock: () => clock.now,
      random: Math.random,
      eager: true,
    });
    const both = ['a', 'b'];
    expect(eager.controlsDue(platform!, both)).toBe(2);
    let answer: () => void = () => {};
    const sendControl = (name: string) =>
      new Promise<SentCheck>((resolve) => {
        answer = () => resolve(sent('miss', name));
      });
    // Being checked through a: b may still send one, a may not.
    const checking = eager.current(platform!, 'a', sendControl);
    expect(eager.controlsDue(platform!, ['a'])).toBe(0);
    expect(eager.controlsDue(platform!, both)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer();
    await checking;
    expect(eager.controlsDue(platform!, ['a'])).toBe(0);
    const other = eager.current(platform!, 'b', async (name) => sent('miss', name));
    await other;
    expect(eager.controlsDue(platform!, both)).toBe(0);
    // Due again once the window is over; never when controls do not go out alongside checks.
    clock.now += WINDOW;
    expect(eager.controlsDue(platform!, both)).toBe(2);
    expect(guardOn(new MemoryControlLedger(), clock).controlsDue(platform!, both)).toBe(0);
  });

  it('sends one control for many hits at once, and none again within the window', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const guard = guardOn(new MemoryControlLedger(), clock);
    const controls: string[] = [];
    const sendControl = async (name: string) => {
      controls.push(name);
      return sent('miss', name);
    };
    const hits = await Promise.all(
      Array.from({ length: 20 }, () => guard.vet(platform!, 'default', sent('hit', 'sam'), sendControl)),
    );
    expect(hits.every((h) => h.status === 'hit' && h.evidence.control?.includes('read miss'))).toBe(true);
    clock.now += WINDOW - 1;
    await guard.vet(platform!, 'default', sent('hit', 'sam'), sendControl);
    expect(controls).toHaveLength(1);
    // Another egress identity has its own control.
    await guard.vet(platform!, 'addr:10.0.0.2', sent('hit', 'sam'), sendControl);
    expect(controls).toHaveLength(2);
    clock.now += 1;
    await guard.vet(platform!, 'default', sent('hit', 'sam'), sendControl);
    expect(controls).toHaveLength(3);
    expect(new Set(controls).size).toBe(3);
  });

  it('reads the ledger once per platform and identity while their control stands', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const ledger = new MemoryControlLedger();
    let reads = 0;
    const counted: ControlLedger = {
      getControl: (platformId, identity) => {
        reads++;
        return ledger.getControl(platformId, identity);
      },
      putControl: (record) => ledger.putControl(record),
      claimLease: (name, ttlMs, now) => ledger.claimLease(name, ttlMs, now),
    };
    const sendControl = async (name: string) => sent('miss', name);
    // Another process sent the control: this one reads it once, then trusts it until it is due.
    await guardOn(ledger, clock).vet(platform!, 'default', sent('hit', 'sam'), sendControl);
    const guard = guardOn(counted, clock);
    for (let minute = 0; minute < 30; minute++) {
      await guard.current(platform!, 'default', sendControl);
      clock.now += 60_000 - 1;
    }
    expect(reads).toBe(1);
    clock.now += 30;
    await guard.current(platform!, 'default', sendControl);
    expect(reads).toBe(2);
  });

  it("is shared through the ledger: a second process waits for the first one's control", async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const ledger = new MemoryControlLedger();
    const [a, b] = [guardOn(ledger, clock), guardOn(ledger, clock)];
    let sentControls = 0;
    let release!: () => void;
    const slow = async (name: string) => {
      sentControls++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return sent('hit', name);
    };
    const first = a.vet(platform!, 'default', sent('hit', 'sam'), slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = b.vet(platform!, 'default', sent('hit', 'ann'), slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.now += 1;
    release();
    const [x, y] = await Promise.all([first, second]);
    expect(sentControls).toBe(1);
    expect([x.status, x.reason, y.status, y.reason]).toEqual([
      'unknown',
      'rule_drift',
      'unknown',
      'rule_drift',
    ]);
  });

  it('tries a control that got no answer again after a minute, not a window', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const guard = guardOn(new MemoryControlLedger(), clock);
    let calls = 0;
    const timingOut = async (name: string): Promise<SentCheck> => {
      calls++;
      const { outcome } = sent('error', name);
      return { outcome: { ...outcome, reason: 'timeout', evidence: { rule: 'timeout', attempts: 1 } } };
    };
    const hit = await guard.vet(platform!, 'default', sent('hit', 'sam'), timingOut);
    // Nothing learned: the hit stands, naming the control that could not tell.
    expect(hit.status).toBe('hit');
    expect(hit.evidence.control).toMatch(/read error\/timeout/);
    clock.now += UNANSWERED_CONTROL_MS - 1;
    await guard.vet(platform!, 'default', sent('hit', 'sam'), timingOut);
    expect(calls).toBe(1);
    clock.now += 1;
    await guard.vet(platform!, 'default', sent('hit', 'sam'), timingOut);
    expect(calls).toBe(2);
  });

  it('lets the hit stand when the ledger cannot be reached', async () => {
    const broken: ControlLedger = {
      getControl: () => Promise.reject(new Error('store down')),
      putControl: () => Promise.reject(new Error('store down')),
      claimLease: () => Promise.reject(new Error('store down')),
    };
    const guard = guardOn(broken, { now: Date.UTC(2026, 0, 1) });
    const hit = sent('hit', 'sam');
    expect(await guard.vet(platform!, 'default', hit, async (n) => sent('hit', n))).toBe(hit.outcome);
  });
});
