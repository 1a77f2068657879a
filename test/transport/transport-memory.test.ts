/**
 * A site remembers the transport it needs: on the simulated web, a site that refuses a
 * handshake not a browser's and one that serves a JavaScript challenge. The first search
 * escalates (the site sees a plain attempt refused); the next starts where the escalation
 * ended (no plain attempt), without spending the search's escalations, and reads the same
 * verdicts; once the memory expires, a search starts at the catalogue's transport again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Catalogue, Platform } from '../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import type { Engine } from '../../src/engine/engine.js';
import { MemoryTransportShelf } from '../../src/engine/transport-book.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { budgetOrigin } from '../../src/schedule/politeness-bound.js';
import type { SimRequest } from '../../src/sim/behaviour.js';
import type { SimDefence } from '../../src/sim/defence.js';
import { SimWeb } from '../../src/sim/server.js';
import { createTestCa } from '../../src/sim/tls.js';
import { RedisStore } from '../../src/store/redis.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from '../cluster/redis-support.js';
import { hasBrowser } from '../support/browser-guard.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';

const ca = await createTestCa();
const TTL_MS = 60_000;
const GUARDED = 'guarded.test';
const REFUSING = 'refusing.test';
const CHALLENGED = 'challenged.test';

/** A site where only `alice` has an account: 200 with her page, 404 otherwise. */
function site(host: string, defence: SimDefence) {
  return {
    host,
    defence,
    handle: (req: SimRequest) => {
      const name = /^\/\w+\/([^/?]+)/.exec(req.path)?.[1];
      if (name === undefined) return undefined;
      return name === 'alice'
        ? { kind: 'respond' as const, status: 200, body: '<html><title>alice</title><h1>alice</h1></html>' }
        : { kind: 'respond' as const, status: 404, body: '<html><title>Not found</title></html>' };
    },
  };
}

/** A platform on `host` that the catalogue sends by http, at `path`. */
function spec(name: string, host: string, path = 'u'): PlatformSpec {
  return entry(name, { home: `https://${host}/`, profile: `https://${host}/${path}/{username}` });
}

describe('a site remembers the transport it needs', () => {
  const sim = new SimWeb({
    ca,
    routes: [site(GUARDED, 'handshake'), site(REFUSING, 'handshake-alert'), site(CHALLENGED, 'challenge')],
  });
  let catalogue: Catalogue;
  const engines: Engine[] = [];
  const engine = (
    overrides: Parameters<typeof engineFor>[2],
    options: Parameters<typeof engineFor>[3] = {},
  ) => {
    // The browser cannot trust the sim's CA (browser.ts): these engines accept its certificates.
    // No control checks: each site sees the checks searched for, and nothing else.
    const made = engineFor(
      sim,
      catalogue,
      {
        insecureTls: true,
        timeoutMs: 30_000,
        browserContexts: 1,
        escalations: 2,
        transportMemoryTtlMs: TTL_MS,
        controlWindowMs: 0,
        ...overrides,
      },
      options,
    );
    engines.push(made);
    return made;
  };
  const platforms = (...names: string[]): Platform[] =>
    names.map((name) => {
      const found = catalogue.platforms.find((p) => p.name === name);
      if (!found) throw new Error(name);
      return found;
    });
  const search = async (on: Engine, username: string, of: readonly Platform[]): Promise<Outcome[]> => {
    const outcomes: Outcome[] = [];
    for await (const outcome of on.search(username, of)) outcomes.push(outcome);
    return outcomes.sort((a, b) => a.platformId.localeCompare(b.platformId));
  };
  const seen = (host: string) => ({ plain: 0, refused: 0, ...sim.defended.get(host) });
  const verdicts = (outcomes: readonly Outcome[]) =>
    outcomes.map((o) => ({ status: o.status, reason: o.reason, transport: o.evidence.transport }));

  beforeAll(async () => {
    await sim.start();
    catalogue = catalogueOf([
      spec('Guarded', GUARDED),
      spec('Guarded people', GUARDED, 'people'),
      spec('Guarded members', GUARDED, 'members'),
      spec('Refusing', REFUSING),
      spec('Challenged', CHALLENGED),
    ]);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await sim.stop();
  });

  it('starts the next search at the transport an escalation needed, until it is forgotten', async () => {
    const scout = engine({});
    const [guarded] = platforms('Guarded');
    const first = await search(scout, 'alice', [guarded!]);
    expect(verdicts(first)).toEqual([{ status: 'hit', reason: undefined, transport: 'impersonate' }]);
    // The plain handshake was tried and refused, then impersonate got through.
    expect(seen(GUARDED)).toEqual({ plain: 1, refused: 1 });

    // Remembered: no plain attempt, the same verdict; a missing name reads missing the same way.
    expect(verdicts(await search(scout, 'alice', [guarded!]))).toEqual(verdicts(first));
    expect(verdicts(await search(scout, 'nobody-here-7', [guarded!]))).toEqual([
      { status: 'miss', reason: undefined, transport: 'impersonate' },
    ]);
    expect(seen(GUARDED)).toEqual({ plain: 1, refused: 1 });

    // Three platforms of the site with two escalations: starting at the remembered transport spends none.
    const three = platforms('Guarded', 'Guarded people', 'Guarded members');
    const all = await search(scout, 'alice', three);
    expect(verdicts(all)).toEqual(
      Array(3).fill({ status: 'hit', reason: undefined, transport: 'impersonate' }),
    );
    expect(seen(GUARDED)).toEqual({ plain: 1, refused: 1 });

    // Forgotten once its time is past: the catalogue's transport first again, then the escalation.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + TTL_MS + 1_000);
    expect(verdicts(await search(scout, 'alice', [guarded!]))).toEqual(verdicts(first));
    expect(seen(GUARDED)).toEqual({ plain: 2, refused: 2 });
  });

  it('remembers a site that refused the handshake with an alert as one that answered a block page', async () => {
    const scout = engine({});
    const [refusing] = platforms('Refusing');
    const first = await search(scout, 'alice', [refusing!]);
    expect(verdicts(first)).toEqual([{ status: 'hit', reason: undefined, transport: 'impersonate' }]);
    expect(seen(REFUSING)).toEqual({ plain: 1, refused: 1 });
    // Remembered: the next search starts at impersonate, and its handshake is not refused again.
    expect(verdicts(await search(scout, 'nobody-here-7', [refusing!]))).toEqual([
      { status: 'miss', reason: undefined, transport: 'impersonate' },
    ]);
    expect(seen(REFUSING)).toEqual({ plain: 1, refused: 1 });
  });

  it('shares what one process learned with the others of a cluster, through Redis', async () => {
    const redis = await connectTestRedis();
    const prefix = uniquePrefix('transports');
    // Two processes' engines, each with its own store client on the same Redis.
    const stores = [0, 1].map(() => new RedisStore({ redis, prefix, now: Date.now }));
    try {
      const [first, second] = stores.map((store) => engine({}, { transportMemory: store.transportMemory }));
      const [guarded] = platforms('Guarded people');
      const before = seen(GUARDED);
      expect(verdicts(await search(first!, 'alice', [guarded!]))).toEqual([
        { status: 'hit', reason: undefined, transport: 'impersonate' },
      ]);
      expect(seen(GUARDED)).toEqual({ plain: before.plain + 1, refused: before.refused + 1 });
      // Written as the escalation answered, not waited for by the check: the other reads it once it lands.
      await vi.waitFor(async () =>
        expect(await stores[1]!.transportMemory.remembered(Date.now())).toHaveLength(1),
      );
      expect(verdicts(await search(second!, 'alice', [guarded!]))).toEqual([
        { status: 'hit', reason: undefined, transport: 'impersonate' },
      ]);
      expect(seen(GUARDED)).toEqual({ plain: before.plain + 1, refused: before.refused + 1 });
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await deleteKeys(redis, `${prefix}:`);
      await redis.quit();
    }
  });

  it('remembers nothing when escalation is off', async () => {
    const plain = engine({ escalations: 0 });
    const [guarded] = platforms('Guarded');
    const before = seen(GUARDED);
    for (let i = 0; i < 2; i++)
      expect(await search(plain, 'alice', [guarded!])).toMatchObject([{ status: 'unknown', reason: 'waf' }]);
    expect(seen(GUARDED)).toEqual({ plain: before.plain + 2, refused: before.refused + 2 });
  });

  it('ends a check unknown, needs_browser, sending nothing, when the site needs a browser this process lacks', async () => {
    // What another process learned, on the shelf they share (the store).
    const shelf = new MemoryTransportShelf();
    const [challenged] = platforms('Challenged');
    await shelf.keep({
      origin: budgetOrigin(challenged!),
      identity: 'default',
      transport: 'browser',
      at: Date.now(),
      expiresAt: Date.now() + TTL_MS,
    });
    const without = engine({ browserPath: '/nonexistent/chromium' }, { transportMemory: shelf });
    const before = sim.hits.get(CHALLENGED) ?? 0;
    const [outcome] = await search(without, 'alice', [challenged!]);
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'needs_browser', evidence: { attempts: 0 } });
    expect(outcome!.evidence.rule).toMatch(/found to need browser/);
    expect(sim.hits.get(CHALLENGED) ?? 0).toBe(before);
  });

  it.runIf(hasBrowser)(
    'starts a challenged site at the browser once an escalation needed it',
    async () => {
      const browsing = engine({});
      const [challenged] = platforms('Challenged');
      const before = seen(CHALLENGED);
      const first = await search(browsing, 'alice', [challenged!]);
      expect(verdicts(first)).toEqual([{ status: 'hit', reason: undefined, transport: 'browser' }]);
      // http and impersonate were answered the challenge, and the browser's first load too, before its reload.
      expect(seen(CHALLENGED)).toEqual({ plain: before.plain + 1, refused: before.refused + 3 });

      expect(verdicts(await search(browsing, 'alice', [challenged!]))).toEqual(verdicts(first));
      expect(verdicts(await search(browsing, 'nobody-here-7', [challenged!]))).toEqual([
        { status: 'miss', reason: undefined, transport: 'browser' },
      ]);
      // Only the browser came: its first load of each page answered the challenge, its reload got through.
      expect(seen(CHALLENGED)).toEqual({ plain: before.plain + 1, refused: before.refused + 5 });
    },
    120_000,
  );
});
