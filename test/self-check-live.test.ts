/**
 * The scheduled self-check inside the running service, so a site that changes
 * is caught without an operator: with no
 * health file at all, the service re-checks every platform's known accounts on
 * its own, finds the one whose site changed broken, lists it with its reason
 * and leaves it out of default searches, while it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { catalogueOf, entry } from './support/catalogue.js';
import { json, pollUntilDone, postSearch, type RunningService, startService } from './support/service.js';

const catalogue = catalogueOf([entry('Alpha'), entry('Bravo'), entry('Charlie', { category: 'coding' })]);
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, {
    // Bravo was redesigned: every name gets the same page, which reads as an account.
    override: (p) =>
      p.name === 'Bravo'
        ? { kind: 'respond', status: 200, body: '<html><body>Welcome to the new Bravo</body></html>' }
        : undefined,
  }).routes,
});
let running: RunningService;

beforeAll(async () => {
  await sim.start();
  // Every platform once every 3 s: one a second.
  running = await startService(sim, catalogue, { selfCheckIntervalMs: 3_000 });
}, 60_000);
afterAll(async () => {
  await running?.service.close();
  await sim.stop();
});

type Listed = {
  name: string;
  enabled: boolean;
  disabledReason?: string;
  health: { state: string; reason?: string };
};

async function platforms(): Promise<Map<string, Listed>> {
  const r = await json(`${running.url}/api/platforms`);
  return new Map((r.body.platforms as Listed[]).map((p) => [p.name, p]));
}

describe('the scheduled self-check in the service', () => {
  it('finds the changed platform broken while running, and lists why', async () => {
    const deadline = Date.now() + 30_000;
    let listed = await platforms();
    while (listed.get('Bravo')?.enabled !== false && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      listed = await platforms();
    }
    const bravo = listed.get('Bravo')!;
    expect(bravo.enabled).toBe(false);
    // Its probes' hits met a control that read hit too: the rule has drifted, which is why it is broken.
    expect(bravo.disabledReason).toMatch(/unclaimed "nobody-here-7": expected miss, got unknown\/rule_drift/);
    expect(bravo.health.state).toBe('rule_drift');
    expect(bravo.health.reason).toMatch(/^control "[^"]+" read hit/);
    // The others answered as their entries say.
    const healthy = (name: string) => listed.get(name)?.health.state === 'healthy';
    while (!(healthy('Alpha') && healthy('Charlie')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      listed = await platforms();
    }
    expect(listed.get('Alpha')!.health.state).toBe('healthy');
    expect(listed.get('Charlie')!.enabled).toBe(true);
  }, 40_000);

  it('leaves the broken platform out of default searches', async () => {
    const started = await postSearch(running.url, { username: 'alice' });
    expect(started.body.totalPlatforms).toBe(2);
    const done = await pollUntilDone(running.url, started.body.queryId, '&include=all');
    expect((done.body.results as { platform: string }[]).map((r) => r.platform).sort()).toEqual([
      'Alpha',
      'Charlie',
    ]);
  }, 30_000);
});
