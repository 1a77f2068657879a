/**
 * The whole built-in catalogue against the simulated web, where each platform
 * behaves as its own entry says: every known claimed account must be a hit and
 * every unclaimed name a miss. This proves the entries are self-consistent and
 * that the engine reads each of them as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../src/catalogue/builtin.js';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/outcome.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { engineFor } from './support/engine.js';

describe('built-in catalogue on the simulated web', () => {
  // That every shipped entry is valid is src/catalogue/builtin.test.ts's.
  const { catalogue } = loadBuiltinCatalogue();
  const platforms = catalogue.platforms.filter((p) => p.enabled);
  const emulation = emulateCatalogue(platforms, catalogue.shields);
  const sim = new SimWeb({ routes: emulation.routes });
  let engine: Engine;

  beforeAll(async () => {
    await sim.start();
    engine = engineFor(sim, catalogue, {
      timeoutMs: 20_000,
      connectTimeoutMs: 20_000,
      concurrency: 64,
      retries: 0,
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    await sim.stop();
  });

  it('every enabled platform can be emulated from its own rules', () => {
    expect(emulation.problems).toEqual([]);
  });

  it('claimed accounts are hits and unclaimed names are misses', async () => {
    const checks: Promise<[string, string, Outcome]>[] = [];
    for (const p of platforms) {
      checks.push(engine.check(p, p.known.claimed[0]!).then((o) => ['hit', p.known.claimed[0]!, o]));
      checks.push(engine.check(p, p.known.unclaimed[0]!).then((o) => ['miss', p.known.unclaimed[0]!, o]));
    }
    const results = await Promise.all(checks);
    const wrong = results
      .filter(([expected, , o]) => o.status !== expected)
      .map(
        ([expected, name, o]) =>
          `${o.platform} ${name}: expected ${expected}, got ${o.status}${o.reason ? `/${o.reason}` : ''} (${o.evidence.rule})`,
      );
    console.log(
      `catalogue on the simulated web: ${platforms.length} platforms, ${results.length} checks, ${wrong.length} wrong`,
    );
    expect(wrong).toEqual([]);
  }, 300_000);
});
