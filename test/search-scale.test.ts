/**
 * A search over 750 simulated platforms with mixed behaviours: every platform
 * gets exactly its right outcome, and the hung ones cost no more than the timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { syntheticPlatforms } from '../src/sim/synthetic.js';
import { catalogueOf } from './support/catalogue.js';
import { engineFor } from './support/engine.js';

const USERNAME = 'scout';
// Generous: the sim and the engine share a process, and on a busy 2-core machine it gets a
// fraction of a core, while a reset platform needs two handshakes and a backoff within it.
const TIMEOUT = 15_000;

describe('one search over 750 platforms with mixed behaviours', () => {
  const synthetic = syntheticPlatforms(750, { seed: 11, username: USERNAME });
  const catalogue = catalogueOf(synthetic.map((s) => s.spec));
  const byName = new Map(synthetic.map((s) => [s.spec.name, s]));
  const gzip = new Set(synthetic.filter((s) => s.kind === 'gzip').map((s) => s.spec.name));
  const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
    accounts: (p) => (byName.get(p.name)?.exists ? [USERNAME] : []),
    override: (p) => byName.get(p.name)?.behaviour,
    latency: (p) => (p.name.length % 7) * 10,
  });
  const brokenTls = Object.fromEntries(
    synthetic.filter((s) => s.brokenTls).map((s) => [new URL(s.spec.home).hostname, s.brokenTls!]),
  );
  // gzip platforms: compress whatever the emulation answers.
  const routes = emulation.routes.map((r) => ({
    host: r.host,
    handle: (req: Parameters<typeof r.handle>[0]) => {
      const b = r.handle(req);
      const host = typeof r.host === 'string' ? r.host : req.host;
      const name = synthetic.find((s) => new URL(s.spec.home).hostname === host)?.spec.name;
      return b && b.kind === 'respond' && name && gzip.has(name) ? { ...b, encoding: 'gzip' as const } : b;
    },
  }));
  const sim = new SimWeb({ routes, brokenTls });
  let engine: Engine;

  beforeAll(async () => {
    await sim.start();
    // The simulated web shares this process: keep concurrent TLS handshakes modest on two cores.
    engine = engineFor(sim, catalogue, { timeoutMs: TIMEOUT, concurrency: 64, retries: 1 });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    await sim.stop();
  });

  it('has every kind of behaviour', () => {
    expect(new Set(synthetic.map((s) => s.kind)).size).toBe(14);
    expect(emulation.problems).toEqual([]);
  });

  it('classifies every platform correctly', async () => {
    const started = performance.now();
    const outcomes: Outcome[] = [];
    for await (const o of engine.search(USERNAME, catalogue.platforms)) outcomes.push(o);
    const elapsed = performance.now() - started;
    expect(outcomes).toHaveLength(750);
    const wrong = outcomes
      .filter((o) => {
        const want = byName.get(o.platform)!.expected;
        return o.status !== want.status || o.reason !== want.reason;
      })
      .map(
        (o) =>
          `${o.platform}: got ${o.status}/${o.reason} (${o.evidence.rule}), want ${JSON.stringify(byName.get(o.platform)!.expected)}`,
      );
    // Listed whole when it fails: the platforms and what each read.
    expect(wrong, wrong.join('\n')).toEqual([]);
    // Response times are whole milliseconds, as the API documents.
    expect(outcomes.filter((o) => !Number.isInteger(o.responseTime)).map((o) => o.platform)).toEqual([]);
    console.log(`750 mixed platforms in ${Math.round(elapsed)} ms (timeout ${TIMEOUT} ms)`);
    // A hung platform costs its timeout and no more: a second attempt after it would double
    // it. The margin is wide so that a loaded machine's late timers do not matter.
    const hung = outcomes.filter((o) => byName.get(o.platform)!.kind === 'hang');
    expect(hung.length).toBeGreaterThan(0);
    for (const o of hung) expect(o.responseTime).toBeLessThan(TIMEOUT * 1.5);
  }, 120_000);
});
