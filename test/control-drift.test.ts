/**
 * Rule drift on the simulated web: four platforms whose sites changed under
 * their rules — one answers 200 with the profile marker for every name (and a
 * hit-only one does too), one's missing page lost the text the rule looks for,
 * one redirects every name to the same page. A control check (a name that cannot
 * exist) reads hit there, so every hit becomes unknown/rule_drift and the
 * platform list says so. Healthy platforms answer exactly as without controls,
 * and each platform's control is sent at most once per window across searches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformSpec } from '../src/catalogue/schema.js';
import type { SimRoute } from '../src/sim/behaviour.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { SimWeb } from '../src/sim/server.js';
import { catalogueOf, entry } from './support/catalogue.js';
import {
  json,
  metricsText,
  pollUntilDone,
  postSearch,
  type RunningService,
  startService,
} from './support/service.js';

const healthy: PlatformSpec[] = [
  entry('Alpha'),
  entry('Bravo', {
    detect: { exists: [{ status: [200] }, { text: 'class="profile-card"' }], missing: [{ status: [404] }] },
  }),
  entry('Charlie', { category: 'coding' }),
  // Hit-only: its control reads unknown/no_miss_rule, which confirms its hits.
  entry('Marks', { detect: { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] } }),
];
const drifted: PlatformSpec[] = [
  // Now answers every name with a profile page.
  entry('Mirror', {
    detect: { exists: [{ status: [200] }, { text: 'class="profile-card"' }], missing: [{ status: [404] }] },
  }),
  // Its missing page still answers 200, but no longer says "User not found".
  entry('Relabel', { detect: { exists: [{ status: [200] }], missing: [{ text: 'User not found' }] } }),
  // Hit-only, and now shows the marker for every name.
  entry('Echo', { detect: { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] } }),
  // Its profile names the account (a text holding {username}), and now every page names the name asked.
  entry('Namer', {
    detect: { exists: [{ status: [200] }, { text: '/u/{username}"' }], missing: [{ text: 'No such user' }] },
  }),
  // Sends every name to the same landing page.
  entry('Funnel', {
    check: { url: 'https://funnel.test/u/{username}', redirects: 'follow' },
    detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
  }),
];
const DRIFTED = drifted.map((p) => p.name);
const catalogue = catalogueOf([...healthy, ...drifted]);

const landing: SimRoute = {
  host: 'funnel.test',
  handle: (req) =>
    req.path === '/welcome'
      ? {
          kind: 'respond',
          status: 200,
          body: '<html><head><title>Welcome</title></head><body>Join us</body></html>',
        }
      : undefined,
};
/** Every request, as host and path: the controls are the names no search asked about. */
const seen: { host: string; path: string }[] = [];
const recorder: SimRoute = {
  host: /.*/,
  handle: (req) => {
    seen.push({ host: req.host, path: req.path });
    return undefined;
  },
};
const sim = new SimWeb({
  routes: [
    recorder,
    landing,
    ...emulateCatalogue(catalogue.platforms, catalogue.shields, {
      accounts: (p) => [...p.known.claimed, 'sam'],
      override: (p, username) => {
        switch (p.name) {
          case 'Mirror':
            return {
              kind: 'respond',
              status: 200,
              body: `<html><head><title>${username}</title></head><body><div class="profile-card">${username}</div></body></html>`,
            };
          case 'Echo':
            return {
              kind: 'respond',
              status: 200,
              body: `<html><body><li class="mark">${username}</li></body></html>`,
            };
          case 'Relabel':
            return {
              kind: 'respond',
              status: 200,
              body: '<html><body>This account does not exist.</body></html>',
            };
          case 'Namer':
            return {
              kind: 'respond',
              status: 200,
              body: `<html><body><a href="/u/${username}">${username}</a></body></html>`,
            };
          case 'Funnel':
            return { kind: 'respond', status: 302, headers: { location: 'https://funnel.test/welcome' } };
          default:
            return undefined;
        }
      },
    }).routes,
  ],
});

let withControls: RunningService;
let withoutControls: RunningService;

beforeAll(async () => {
  await sim.start();
  withControls = await startService(sim, catalogue);
  withoutControls = await startService(sim, catalogue, { controlWindowMs: 0 });
}, 60_000);
afterAll(async () => {
  await withControls?.service.close();
  await withoutControls?.service.close();
  await sim.stop();
});

type Result = {
  platform: string;
  status: string;
  reason?: string;
  evidence: { rule: string; control?: string; snippet?: string };
};

async function search(url: string, username: string): Promise<Map<string, Result>> {
  const started = await postSearch(url, { username });
  expect(started.status).toBe(200);
  const done = await pollUntilDone(url, started.body.queryId, '&include=all');
  return new Map((done.body.results as Result[]).map((r) => [r.platform, r]));
}

/** Requests a platform's host received for names other than those searched: its control checks. */
function controlRequests(host: string, searched: readonly string[]): number {
  return seen.filter(
    (r) =>
      r.host === host &&
      r.path !== '/welcome' &&
      !searched.some((name) => decodeURIComponent(r.path).toLowerCase() === `/u/${name.toLowerCase()}`),
  ).length;
}

describe('rule drift', () => {
  const names = ['sam', 'alice', 'zed-nobody-1', 'Кирилл', 'sam'];

  it('gives unknown/rule_drift, never hit, on a drifted platform, naming the control', async () => {
    for (const name of names) {
      const results = await search(withControls.url, name);
      for (const platform of DRIFTED) {
        const r = results.get(platform)!;
        if (r.status === 'invalid') continue;
        expect(r, `${platform} for ${name}`).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
        expect(r.evidence.control).toMatch(/^control "[^"]+" read hit/);
      }
    }
  }, 60_000);

  it('answers exactly as without controls on healthy platforms', async () => {
    for (const name of ['sam', 'alice', 'zed-nobody-1']) {
      const on = await search(withControls.url, name);
      const off = await search(withoutControls.url, name);
      for (const { name: platform } of healthy) {
        const a = on.get(platform)!;
        const b = off.get(platform)!;
        expect([a.status, a.reason], `${platform} for ${name}`).toEqual([b.status, b.reason]);
        expect(a.evidence.rule).toBe(b.evidence.rule);
      }
      expect(on.get('Alpha')!.status).toBe(name === 'zed-nobody-1' ? 'miss' : 'hit');
      // A hit-only platform's hit stands beside a control that read unknown/no_miss_rule.
      const marks = on.get('Marks')!;
      if (name === 'zed-nobody-1') expect(marks).toMatchObject({ status: 'unknown', reason: 'no_miss_rule' });
      else {
        expect(marks.status).toBe('hit');
        expect(marks.evidence.control).toMatch(/^control "[^"]+" read unknown\/no_miss_rule/);
      }
      // Without controls the drifted platforms read hit: what the controls caught.
      expect(off.get('Mirror')!.status).toBe('hit');
      // The control's page names the control's own name: its marker is filled with that name.
      expect(off.get('Namer')!.status).toBe('hit');
    }
  }, 60_000);

  it('shows each drifted platform, and only those, as rule_drift in /api/platforms', async () => {
    const r = await json(`${withControls.url}/api/platforms`);
    expect(r.status).toBe(200);
    const byName = new Map(
      (r.body.platforms as { name: string; health: Record<string, string> }[]).map((p) => [p.name, p]),
    );
    for (const platform of DRIFTED) {
      const health = byName.get(platform)!.health;
      expect(health.state, platform).toBe('rule_drift');
      expect(health.reason).toMatch(/control "[^"]+" read hit/);
      expect(Date.parse(health.lastCheckedAt!)).toBeGreaterThan(0);
    }
    for (const { name } of healthy) expect(byName.get(name)!.health.state, name).toBe('healthy');
    const metrics = await metricsText(withControls.url);
    expect(metrics).toMatch(/userscout_platform_rule_drift\{platform="mirror",identity="default"\} 1/);
    expect(metrics).toMatch(/userscout_platform_rule_drift\{platform="alpha",identity="default"\} 0/);
  });

  it('sends at most one control per platform per window, however many searches', () => {
    const searched = [...names, 'zed-nobody-1'];
    for (const spec of [...healthy, ...drifted]) {
      const host = new URL(spec.home).host;
      expect(controlRequests(host, searched), spec.name).toBeLessThanOrEqual(2); // one per service
    }
    // The service with controls sent exactly one to a platform that had hits.
    expect(controlRequests('alpha.test', searched)).toBe(1);
  });
});
