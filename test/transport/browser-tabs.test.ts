/**
 * The browser transport's tabs, with Debian's Chromium: a tab handed to the next check
 * carries nothing over, however late a page writes; after 50 checks the tabs were
 * reused, memory is back at its level, and none is left open once the engine closes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  browserFixture,
  browserMemory,
  browserPids,
  hasBrowser,
  STICKY,
  STICKY_LATE,
} from './browser-fixture.js';

const MB = 1024 * 1024;
/** A collection on demand, so the heap read is what is still held, not what awaits collection. */
const collect = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();
type Memory = { browser: number; heap: number };
function memory(browsers: readonly number[]): Memory {
  collect();
  return { browser: browserMemory(browsers), heap: process.memoryUsage().heapUsed };
}

describe.runIf(hasBrowser)("the browser transport's tabs", () => {
  const { platform, engine } = browserFixture();

  it('hands a wiped tab to the next check: nothing one check leaves is seen by the next', async () => {
    const { engine: sequential, tally } = engine({ browserContexts: 1, controlWindowMs: 0 });
    for (const name of ['alice', 'bob', 'carol'])
      expect(await sequential.check(platform(STICKY), name)).toMatchObject({
        status: 'miss',
        evidence: { transport: 'browser' },
      });
    expect(tally.read()).toMatchObject({ tabs: 1, pages: 1, contexts: 0 });
    await sequential.close();
    expect(tally.read()).toMatchObject({ pages: 0, contexts: 0 });
  }, 120_000);

  it('hands on nothing a page writes late: on a timer, as it is left, from a popup', async () => {
    const { engine: sequential, tally } = engine({ browserContexts: 1, controlWindowMs: 0 });
    const read = async (names: string[]) => {
      const statuses: string[] = [];
      for (const name of names) statuses.push((await sequential.check(platform(STICKY_LATE), name)).status);
      return statuses;
    };
    // Scripts stopped before the clearing: the tab is still reused.
    expect(await read(['alice', 'bob', 'carol'])).toEqual(['miss', 'miss', 'miss']);
    expect(tally.read()).toMatchObject({ tabs: 1 });
    // A popup goes on writing: the tab that opened it is closed, not reused.
    expect(await read(['dave', 'erin'])).toEqual(['miss', 'miss']);
    expect(tally.read()).toMatchObject({ tabs: 2, pages: 1 });
  }, 120_000);

  it('leaves no context or page open and memory at its level after 50 browser checks, on one browser', async () => {
    const { engine: busy, tally } = engine({
      browserContexts: 5,
      budgetPerSecond: 100,
      budgetBurst: 10,
      controlWindowMs: 0,
    });
    const before = new Set(browserPids());
    let browsers: number[] = [];
    const outcomes = [];
    let level: Memory | undefined;
    // Ten rounds of five at once: each check has its context, none waits out its deadline for one.
    for (let round = 0; round < 10; round++) {
      const names = Array.from({ length: 5 }, (_, i) => (i === 0 ? 'alice' : `nobody-${round}-${i}`));
      outcomes.push(...(await Promise.all(names.map((name) => busy.check(platform('plain.test'), name)))));
      // The level once the tabs a round keeps are open and warm: what the next 35 checks come back to.
      if (round === 0) browsers = browserPids().filter((pid) => !before.has(pid));
      if (round === 2) level = memory(browsers);
    }
    expect(outcomes).toHaveLength(50);
    const after = memory(browsers);
    expect(browsers).toHaveLength(1);
    const figures = JSON.stringify({ level, after });
    // A check that left its context or renderer behind would add tens of megabytes each.
    expect(after.browser, figures).toBeLessThanOrEqual((level?.browser ?? 0) * 1.25 + 32 * MB);
    expect(after.heap, figures).toBeLessThanOrEqual((level?.heap ?? 0) + 16 * MB);
    // Listed whole when it fails: each outcome that read otherwise, and why.
    const unexpected = outcomes.filter((o) => o.status !== (o.url.endsWith('/u/alice') ? 'hit' : 'miss'));
    expect(
      unexpected,
      JSON.stringify(unexpected.map((o) => [o.url, o.status, o.reason, o.evidence.rule])),
    ).toEqual([]);
    expect(outcomes.filter((o) => o.status === 'hit')).toHaveLength(10);
    expect(tally.read()).toMatchObject({ launches: 1, contexts: 0, crashes: 0, hangs: 0 });
    // Tabs are reused: at most one per check at once is kept, and closing the engine closes them.
    expect(tally.read().pages).toBeLessThanOrEqual(5);
    expect(tally.read().tabs).toBeLessThanOrEqual(10);
    await busy.close();
    expect(tally.read()).toMatchObject({ contexts: 0, pages: 0 });
  }, 300_000);
});
