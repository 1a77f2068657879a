/**
 * The browser transport when its browser fails, with Debian's Chromium: a browser
 * killed or frozen mid-check is replaced and the next check reads the site; the
 * search threads of a process share its browsers, and one frozen under a thread
 * that did not launch it is replaced once; a page that never answers ends at the
 * check's deadline with its context closed.
 */
import { describe, expect, it } from 'vitest';
import { BrowserDirectory } from '../../src/engine/transport/browser-directory.js';
import { TransportTally } from '../../src/engine/transport/transport-tally.js';
import { browserFixture, browserPids, hasBrowser } from './browser-fixture.js';

describe.runIf(hasBrowser)('the browser transport when its browser fails', () => {
  const { sim, platform, engine } = browserFixture();

  it('replaces a browser killed mid-check, and the check in flight and the next read the site', async () => {
    const { engine: killed, tally } = engine();
    expect(await killed.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    const before = new Set(browserPids());
    const pids = browserPids();
    expect(pids.length).toBeGreaterThan(0);
    const hitsBefore = sim.hits.get('plain.test') ?? 0;
    const inFlight = killed.check(platform('plain.test'), 'slow-alice');
    await expect.poll(() => sim.hits.get('plain.test') ?? 0, { timeout: 10_000 }).toBeGreaterThan(hitsBefore);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    // Tried again on the replacement, within its deadline: the site's answer, not the crash's.
    expect(await inFlight).toMatchObject({ status: 'hit', evidence: { transport: 'browser' } });
    expect(await killed.check(platform('plain.test'), 'nobody-here-7')).toMatchObject({ status: 'miss' });
    // The dead browser's tabs are gone; the replacement keeps the one tab its checks shared.
    expect(tally.read()).toMatchObject({ crashes: 1, launches: 2, contexts: 0, pages: 1 });
    expect(browserPids().some((pid) => before.has(pid))).toBe(false);
  }, 120_000);

  it('kills a browser frozen mid-check once its context does not close, and the next check reads the site', async () => {
    // A deadline that leaves room for Chromium's launch on a loaded machine, which the first check waits for.
    const { engine: frozen, tally } = engine({ timeoutMs: 12_000 });
    expect(await frozen.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    const pids = browserPids();
    const hitsBefore = sim.hits.get('plain.test') ?? 0;
    const inFlight = frozen.check(platform('plain.test'), 'slow-bob');
    await expect.poll(() => sim.hits.get('plain.test') ?? 0, { timeout: 10_000 }).toBeGreaterThan(hitsBefore);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      expect(await inFlight).toMatchObject({ status: 'error', reason: 'timeout' });
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Killed already: what the test expects.
        }
      }
    }
    expect(tally.read()).toMatchObject({ hangs: 1, contexts: 0 });
    expect(await frozen.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(tally.read()).toMatchObject({ hangs: 1, launches: 2, contexts: 0, pages: 1 });
  }, 120_000);

  it("shares one browser between a process's search threads, and one that hangs under a thread that did not launch it is killed and replaced once", async () => {
    // Two engines over one directory and tally are two search threads of one process.
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    const tally = new TransportTally();
    const before = new Set(browserPids());
    // The first launches Chromium (room for it on a loaded machine); the second only connects to it.
    const { engine: first } = engine({ timeoutMs: 12_000 }, tally, directory);
    const { engine: second } = engine({ timeoutMs: 6_000 }, tally, directory);
    expect(await first.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(await second.check(platform('other.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(tally.read()).toMatchObject({ launches: 1, contexts: 0 });
    const shared = directory.read(0);
    expect(shared.state).toBe('up');
    const pid = shared.state === 'up' ? shared.pid : 0;
    expect(browserPids().filter((p) => !before.has(p))).toEqual([pid]);

    // The thread that connected to it meets it frozen mid-check: it kills it by its pid.
    const hitsBefore = sim.hits.get('other.test') ?? 0;
    const inFlight = second.check(platform('other.test'), 'slow-bob');
    await expect.poll(() => sim.hits.get('other.test') ?? 0, { timeout: 10_000 }).toBeGreaterThan(hitsBefore);
    process.kill(pid, 'SIGSTOP');
    try {
      expect(await inFlight).toMatchObject({ status: 'error', reason: 'timeout' });
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Killed already: what the test expects.
      }
    }
    await expect.poll(() => browserPids().includes(pid), { timeout: 10_000 }).toBe(false);
    // The thread that launched it saw it go too, and neither counts it twice; the next check launches one more.
    expect(await first.check(platform('plain.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(await second.check(platform('other.test'), 'alice')).toMatchObject({ status: 'hit' });
    expect(tally.read()).toMatchObject({ hangs: 1, crashes: 0, launches: 2, contexts: 0 });
    expect(browserPids().filter((p) => !before.has(p))).toHaveLength(1);
    await second.close();
    await first.close();
    expect(browserPids().filter((p) => !before.has(p))).toEqual([]);
  }, 120_000);

  it('ends a page that never answers at the deadline, its context and page closed', async () => {
    const { engine: waiting, tally } = engine({ timeoutMs: 2_000 });
    const outcome = await waiting.check(platform('plain.test'), 'hang-1');
    expect(outcome).toMatchObject({ status: 'error', reason: 'timeout' });
    expect(tally.read()).toMatchObject({ contexts: 0, pages: 0, hangs: 0, crashes: 0 });
  }, 120_000);
});
