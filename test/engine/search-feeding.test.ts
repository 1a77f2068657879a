/**
 * How the engine sends the checks of its searches (src/schedule/scheduler.ts), as
 * the simulated web sees them: only as the in-flight slots free, so a search left
 * early never sends the rest; a search whose checks wait on a
 * budget-bound site, or on another process's identical checks, holds back no
 * other site's checks, its own or another search's; a professional search's
 * checks still go first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/catalogue/platform.js';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { SharedChecks } from '../../src/engine/shared-checks.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';

/** Many more checks than the engine has in flight, so what is not sent yet shows. */
const MANY = 100;
const catalogue = catalogueOf([
  // One site with no budget to speak of (see `open`): its checks wait only for in-flight slots.
  ...Array.from({ length: MANY }, (_, i) =>
    entry(`Many ${i}`, { home: 'https://many.test/', profile: `https://many.test/p${i}/{username}` }),
  ),
  // One site that takes 50 requests a second, one at a time: its checks wait for their slots.
  ...Array.from({ length: MANY }, (_, i) =>
    entry(`Slow ${i}`, {
      home: 'https://slow.test/',
      profile: `https://slow.test/p${i}/{username}`,
      budget: { perSecond: 50, burst: 1 },
    }),
  ),
  ...Array.from({ length: 5 }, (_, i) => entry(`Own ${i}`)),
]);
const of = (prefix: string) => catalogue.platforms.filter((p) => p.name.startsWith(prefix));
const many = of('Many');
const slow = of('Slow');
const own = of('Own');
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => 30 });
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth, logRequests: true });
const engines: Engine[] = [];

beforeAll(async () => {
  await sim.start();
  await sim.prepareTls(['many.test', 'slow.test', ...own.map((p) => new URL(p.home).hostname)]);
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await sim.stop();
});

/** Few global slots, the site budgets out of the way unless a platform sets its own. */
function open(concurrency: number): Engine {
  const made = engineFor(sim, catalogue, {
    concurrency,
    perHost: 1024,
    budgetPerSecond: 10_000,
    budgetBurst: 10_000,
    timeoutMs: 20_000,
    retries: 0,
  });
  engines.push(made);
  return made;
}

/** Runs a search, logging `label` and the platform of each outcome as it comes. */
async function logged(
  engine: Engine,
  username: string,
  platforms: Platform[],
  log: string[],
  priority = 0,
): Promise<void> {
  for await (const outcome of engine.search(username, platforms, undefined, { priority }))
    log.push(`${username}:${outcome.platformId}`);
}

describe('sending the checks of searches', () => {
  it('sends a search’s checks as slots free: a search left early never sends the rest', async () => {
    const engine = open(2);
    const from = sim.siteLog.length;
    for await (const _ of engine.search('leaver', many)) break;
    // What was started ends on its own (two at a time, 30 ms each); nothing more starts.
    let sent = -1;
    while (sim.siteLog.length - from !== sent) {
      sent = sim.siteLog.length - from;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(sent).toBeGreaterThan(0);
    // The two in flight when it was left, and one more a freed slot may have sent before it.
    expect(sent).toBeLessThanOrEqual(2 + 1);
  });

  it('holds back no other search’s checks behind a search waiting on a budget-bound site', async () => {
    // Room beside the slow site's checks in flight: a full cap serves the longest path first
    // (in-flight-cap.ts), and this is about the checks that wait for their send times.
    const engine = open(8);
    const log: string[] = [];
    const waiting = logged(engine, 'patient', slow, log);
    await logged(engine, 'later', own, log);
    const slowDone = log.filter((l) => l.startsWith('patient:')).length;
    // 50 a second: the later search is done long before the site has answered a fifth (had
    // the in-flight slots waited for the site, it would start only as the site's checks ended).
    expect(slowDone).toBeLessThan(MANY / 5);
    await waiting;
    expect(log).toHaveLength(MANY + own.length);
  }, 30_000);

  it('holds back none of a search’s other sites behind its own budget-bound one', async () => {
    // Room beside the slow site's checks in flight, as above.
    const engine = open(8);
    const log: string[] = [];
    await logged(engine, 'mixed', [...slow, ...own], log);
    const at = own.map((p) => log.indexOf(`mixed:${p.id}`));
    for (const index of at) expect(index).toBeGreaterThanOrEqual(0);
    expect(Math.max(...at)).toBeLessThan(MANY / 5);
  }, 30_000);

  it('starts a professional search’s checks before a free one’s, whenever it comes', async () => {
    const engine = open(1);
    const log: string[] = [];
    let pro: Promise<void> | undefined;
    const free = (async () => {
      for await (const outcome of engine.search('free', many)) {
        log.push(`free:${outcome.platformId}`);
        pro ??= logged(engine, 'pro', own, log, 1);
      }
    })();
    await free;
    await pro;
    const at = own.map((p) => log.indexOf(`pro:${p.id}`));
    for (const index of at) expect(index).toBeGreaterThan(0);
    // One global slot: the free checks already holding it or sending finish first, no more.
    expect(Math.max(...at)).toBeLessThan(own.length + 4);
  }, 30_000);

  it('holds back no other search’s checks behind checks another process is making', async () => {
    // Another process is checking every platform for `elsewhere`: this one waits for its outcomes.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const elsewhere: SharedChecks = {
      async run(key, check, waiting) {
        if (!key.endsWith(':elsewhere')) return check();
        waiting?.();
        await released;
        return check();
      },
    };
    const caFile = join(mkdtempSync(join(tmpdir(), 'userscout-ca-')), 'ca.pem');
    writeFileSync(caFile, sim.caCert);
    const config = loadConfig(
      {
        connectTo: sim.connectTo,
        refusePrivate: false,
        concurrency: 2,
        perHost: 1024,
        budgetPerSecond: 10_000,
        budgetBurst: 10_000,
        retries: 0,
        caFile,
      },
      {},
    );
    const engine = createEngine(config, catalogue, { sharedChecks: elsewhere });
    engines.push(engine);
    const log: string[] = [];
    const waiting = logged(engine, 'elsewhere', many, log);
    await logged(engine, 'later', own, log);
    expect(log.filter((l) => l.startsWith('elsewhere:'))).toEqual([]);
    release();
    await waiting;
    expect(log).toHaveLength(MANY + own.length);
  }, 30_000);
});
