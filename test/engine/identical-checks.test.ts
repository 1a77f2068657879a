/**
 * Identical checks at the same time in one engine, through the whole pipeline: searches
 * and a lone check asking for the same names share one request each, and a search that
 * leaves early takes nothing from another still waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';

const catalogue = catalogueOf(['Slow A', 'Slow B', 'Slow C'].map((name) => entry(name)));
const sim = new SimWeb();
let engine: Engine;

beforeAll(async () => {
  // Slow enough that every caller asks while the first request is still out.
  sim.addRoute({ host: /.*/, handle: () => ({ kind: 'respond', status: 404, body: 'none', delayMs: 400 }) });
  await sim.start();
  engine = engineFor(sim, catalogue, { timeoutMs: 10_000 });
});
afterAll(async () => {
  await engine.close();
  await sim.stop();
});

async function collect(username: string, until = Number.POSITIVE_INFINITY): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for await (const outcome of engine.search(username, catalogue.platforms)) {
    outcomes.push(outcome);
    if (outcomes.length >= until) break;
  }
  return outcomes;
}

describe('identical checks in one engine', () => {
  it('are sent once for two searches and a lone check at the same time, and each gets the outcome', async () => {
    const before = sim.requestCount;
    const [a, b, lone] = await Promise.all([
      collect('alice'),
      collect('alice'),
      engine.check(catalogue.platforms[0]!, 'alice'),
    ]);
    expect(sim.requestCount - before).toBe(catalogue.platforms.length);
    expect(a.map((o) => o.status)).toEqual(['miss', 'miss', 'miss']);
    expect(b.map((o) => o.status)).toEqual(['miss', 'miss', 'miss']);
    expect(lone.status).toBe('miss');
  });

  it('keep going for a search still waiting when another that shares them leaves', async () => {
    const before = sim.requestCount;
    const [early, whole] = await Promise.all([collect('bob', 1), collect('bob')]);
    expect(early).toHaveLength(1);
    expect(whole.map((o) => o.status)).toEqual(['miss', 'miss', 'miss']);
    expect(sim.requestCount - before).toBe(catalogue.platforms.length);
  });
});
