/**
 * The sites that defend themselves, on the simulated web: one refuses a handshake
 * that is not a browser's with a block page, one with a TLS alert, one answers a
 * JavaScript challenge. Each transport is sent to them, and each defended platform is
 * read with its ordinary rules through the transport that gets past its defence.
 */
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue, Platform } from '../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import type { Engine } from '../../src/engine/engine.js';
import type { SimRequest } from '../../src/sim/behaviour.js';
import type { SimDefence } from '../../src/sim/defence.js';
import { SimWeb } from '../../src/sim/server.js';
import { createTestCa } from '../../src/sim/tls.js';
import { hasBrowser } from '../support/browser-guard.js';
import { catalogueOf, entry, platformNamed } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';

/** One CA for every sim of this file: impit trusts one set of CAs per process (impit-trust.ts). */
const ca = await createTestCa();

/** A site where only `alice` has an account: 200 with her page, 404 otherwise. */
function site(host: string, defence?: SimDefence) {
  return {
    host,
    ...(defence ? { defence } : {}),
    handle: (req: SimRequest) => {
      const name = /^\/u\/([^/?]+)/.exec(req.path)?.[1];
      if (name === undefined) return undefined;
      return name === 'alice'
        ? { kind: 'respond' as const, status: 200, body: `<html><title>alice</title><h1>alice</h1></html>` }
        : { kind: 'respond' as const, status: 404, body: '<html><title>Not found</title></html>' };
    },
  };
}

/** A platform on `host` through `transport`. */
function spec(name: string, host: string, transport: PlatformSpec['transport']): PlatformSpec {
  return entry(name, {
    home: `https://${host}/`,
    profile: `https://${host}/u/{username}`,
    ...(transport ? { transport } : {}),
  });
}

const SITES = {
  handshake: 'guarded.test',
  alert: 'refusing.test',
  challenge: 'challenged.test',
  plain: 'plain.test',
  reset: 'reset.test',
  huge: 'huge.test',
} as const;

/** A site that defends nothing and resets every connection once its request is read. */
const RESET = { host: SITES.reset, handle: () => ({ kind: 'reset' as const }) };

/** Two megabytes of page, its marker at the end: past any small body cap. */
const HUGE = {
  host: SITES.huge,
  handle: () => ({ kind: 'huge' as const, status: 200, bytes: 2 * 1024 * 1024, marker: 'alice' }),
};
const TRANSPORTS = ['http', 'impersonate', 'browser'] as const;

/** Closes the connection under the first request for alice's page, as a server closing an idle one does; then answers. */
const closedOnce = { host: 'closed-once.test', closed: 0 };
const CLOSED_ONCE = {
  host: closedOnce.host,
  handle: (req: SimRequest) => {
    if (req.path !== '/u/alice') return undefined;
    if (closedOnce.closed++ === 0) return { kind: 'reset' as const };
    return { kind: 'respond' as const, status: 200, body: '<html><title>alice</title><h1>alice</h1></html>' };
  },
};

describe('sites that defend themselves', () => {
  const sim = new SimWeb({
    ca,
    routes: [
      site(SITES.handshake, 'handshake'),
      site(SITES.alert, 'handshake-alert'),
      site(SITES.challenge, 'challenge'),
      site(SITES.plain),
      RESET,
    ],
  });
  let catalogue: Catalogue;
  /** No escalation: each platform goes by its own transport. */
  let engine: Engine;
  /** Escalation on (two per check), no browser installed. */
  let escalating: Engine;
  /** Escalation on, with the browser: the only engine that launches Chromium. */
  let browsing: Engine;
  const platform = (name: string) => platformNamed(catalogue, name);

  beforeAll(async () => {
    await sim.start();
    const specs: PlatformSpec[] = [];
    for (const [defence, host] of Object.entries(SITES))
      for (const transport of TRANSPORTS) specs.push(spec(`${defence} by ${transport}`, host, transport));
    specs.push(
      spec('handshake by http 2', SITES.handshake, 'http'),
      spec('handshake by http 3', SITES.handshake, 'http'),
    );
    catalogue = catalogueOf(specs);
    // The browser cannot trust the sim's CA (browser.ts): these tests accept its certificates. The
    // deadline leaves room for Chromium's launch, which the first browser check waits for. Each
    // check escalates from its platform's transport: what a site needed is not remembered here
    // (transport-memory.test.ts remembers it).
    const settings = { insecureTls: true, timeoutMs: 30_000, browserContexts: 1, transportMemoryTtlMs: 0 };
    engine = engineFor(sim, catalogue, settings);
    escalating = engineFor(sim, catalogue, {
      ...settings,
      escalations: 2,
      browserPath: '/nonexistent/chromium',
    });
    browsing = engineFor(sim, catalogue, { ...settings, escalations: 2 });
  });
  afterAll(async () => {
    await Promise.all([engine?.close(), escalating?.close(), browsing?.close()]);
    await sim.stop();
  });

  it('refuses the handshake of Node (http) and lets the impersonating client through', async () => {
    const refused = await engine.check(platform('handshake by http'), 'alice');
    expect(refused).toMatchObject({ status: 'unknown', reason: 'waf', evidence: { httpStatus: 403 } });
    expect(refused.evidence.rule).toMatch(/cloudflare/);
    expect(await engine.check(platform('handshake by impersonate'), 'alice')).toMatchObject({
      status: 'hit',
    });
    expect(await engine.check(platform('handshake by impersonate'), 'nobody-here-7')).toMatchObject({
      status: 'miss',
    });
  });

  it('ends the handshake of Node (http) with an alert, read unknown naming the refusal, and lets impersonate through', async () => {
    const before = { plain: 0, refused: 0, ...sim.defended.get(SITES.alert) };
    const refused = await engine.check(platform('alert by http'), 'alice');
    // No answer, no status: the refusal named, sent once (a defence is not retried).
    expect(refused).toMatchObject({ status: 'unknown', reason: 'waf', evidence: { attempts: 1 } });
    expect(refused.evidence.rule).toMatch(
      /^shield: tls-handshake-refused \(ERR_SSL_(?:SSLV3|SSL\/TLS)_ALERT_HANDSHAKE_FAILURE: /,
    );
    expect(refused.evidence.httpStatus).toBeUndefined();
    expect(refused.evidence.transport).toBeUndefined();
    expect(sim.defended.get(SITES.alert)).toEqual({ plain: before.plain + 1, refused: before.refused + 1 });
    expect(await engine.check(platform('alert by impersonate'), 'alice')).toMatchObject({ status: 'hit' });
    expect(await engine.check(platform('alert by impersonate'), 'nobody-here-7')).toMatchObject({
      status: 'miss',
    });
  });

  it('answers the challenge page to clients that run no script', async () => {
    for (const transport of ['http', 'impersonate'] as const) {
      const outcome = await engine.check(platform(`challenge by ${transport}`), 'alice');
      expect(outcome, transport).toMatchObject({
        status: 'unknown',
        reason: 'waf',
        evidence: { httpStatus: 403 },
      });
    }
  });

  it('reads an undefended site alike through http and impersonate', async () => {
    for (const transport of ['http', 'impersonate'] as const) {
      expect(await engine.check(platform(`plain by ${transport}`), 'alice'), transport).toMatchObject({
        status: 'hit',
      });
      expect(await engine.check(platform(`plain by ${transport}`), 'nobody-here-7'), transport).toMatchObject(
        {
          status: 'miss',
        },
      );
    }
  });

  it('escalates a bot defence to the next transport, within the search budget of escalations', async () => {
    // Past the handshake check through impersonate: read with the platform's ordinary rules.
    expect(await escalating.check(platform('handshake by http'), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'impersonate' },
    });
    expect(await escalating.check(platform('handshake by http'), 'nobody-here-7')).toMatchObject({
      status: 'miss',
      evidence: { transport: 'impersonate' },
    });
    // The challenge stops impersonate too, and only the browser, not installed, is left to try:
    // needs_browser (installing one is what would reach the site), the defence still named.
    const challenged = await escalating.check(platform('challenge by http'), 'alice');
    expect(challenged).toMatchObject({
      status: 'unknown',
      reason: 'needs_browser',
      evidence: { transport: 'impersonate', httpStatus: 403 },
    });
    expect(challenged.evidence.rule).toMatch(/shield: cloudflare.*; not tried through browser: /);
    // Escalation off, the same check reads the defence: the browser would not have been tried.
    expect(await engine.check(platform('challenge by http'), 'alice')).toMatchObject({ reason: 'waf' });
    // A search of three platforms behind the handshake check, with two escalations: the third reads the defence.
    const three = ['handshake by http', 'handshake by http 2', 'handshake by http 3'].map(platform);
    const outcomes = [];
    for await (const outcome of escalating.search('alice', three)) outcomes.push(outcome);
    expect(outcomes.filter((o) => o.status === 'hit' && o.evidence.transport === 'impersonate')).toHaveLength(
      2,
    );
    const rest = outcomes.filter((o) => o.status === 'unknown' && o.reason === 'waf');
    expect(rest).toHaveLength(1);
    // The rest of the search reads the defence, named, and why it was not tried further.
    expect(rest[0]!.evidence.rule).toMatch(/shield: cloudflare/);
    expect(rest[0]!.evidence.rule).toMatch(
      /not tried through impersonate: this search's escalations \(USERSCOUT_ESCALATIONS\) are spent/,
    );
    // Escalation off: the defence, named, with no word of a spent budget.
    const off = await engine.check(platform('handshake by http'), 'alice');
    expect(off).toMatchObject({ reason: 'waf' });
    expect(off.evidence.rule).not.toMatch(/spent/);
  });

  it('escalates a handshake refused with an alert as it does a block page', async () => {
    expect(await escalating.check(platform('alert by http'), 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'impersonate', httpStatus: 200 },
    });
    expect(await escalating.check(platform('alert by http'), 'nobody-here-7')).toMatchObject({
      status: 'miss',
      evidence: { transport: 'impersonate', httpStatus: 404 },
    });
  });

  it('does not escalate a connection reset by a site that defends nothing', async () => {
    const before = sim.hits.get(SITES.reset) ?? 0;
    const outcome = await escalating.check(platform('reset by http'), 'alice');
    expect(outcome).toMatchObject({ status: 'error', reason: 'connection' });
    expect(outcome.evidence.transport).toBeUndefined();
    expect(outcome.evidence.rule).not.toMatch(/tls-handshake-refused/);
    // Each request it sent, retries included, went by http: none through impersonate.
    expect(sim.hits.get(SITES.reset) ?? 0).toBe(before + outcome.evidence.attempts);
  });

  it.runIf(hasBrowser)(
    'passes the challenge through the browser: a hit for the account, a miss for another name',
    async () => {
      const hit = await browsing.check(platform('challenge by browser'), 'alice');
      expect(hit).toMatchObject({ status: 'hit', evidence: { httpStatus: 200 } });
      expect(hit.evidence.finalUrl).toBe('https://challenged.test/u/alice');
      expect(await browsing.check(platform('challenge by browser'), 'nobody-here-7')).toMatchObject({
        status: 'miss',
        evidence: { httpStatus: 404 },
      });
      // Chromium's own handshake passes the handshake check too.
      expect(await browsing.check(platform('handshake by browser'), 'alice')).toMatchObject({
        status: 'hit',
        evidence: { transport: 'browser' },
      });
      // A platform named for http escalates past the challenge to the browser, which says so.
      expect(await browsing.check(platform('challenge by http'), 'alice')).toMatchObject({
        status: 'hit',
        evidence: { transport: 'browser' },
      });
    },
    90_000,
  );
});

describe('every transport keeps to the limits of the http path', () => {
  const sim = new SimWeb({ ca, routes: [site(SITES.plain), HUGE, CLOSED_ONCE] });
  let catalogue: Catalogue;
  const byName = (name: string): Platform => {
    const found = catalogue.platforms.find((p) => p.name === name);
    if (!found) throw new Error(name);
    return found;
  };
  const engines: Engine[] = [];
  const engine = (overrides: Parameters<typeof engineFor>[2]) => {
    const made = engineFor(sim, catalogue, { insecureTls: true, timeoutMs: 30_000, ...overrides });
    engines.push(made);
    return made;
  };

  beforeAll(async () => {
    await sim.start();
    const specs: PlatformSpec[] = [];
    for (const transport of TRANSPORTS) {
      specs.push(spec(`plain by ${transport}`, SITES.plain, transport));
      specs.push({
        ...spec(`huge by ${transport}`, SITES.huge, transport),
        detect: { exists: [{ text: 'never on this page' }], missing: [{ text: 'nor this' }] },
      });
    }
    specs.push(spec('closed once by impersonate', closedOnce.host, 'impersonate'));
    catalogue = catalogueOf(specs);
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await sim.stop();
  });

  it('refuses a private destination (the sim on loopback) through impersonate as through http', async () => {
    const guarded = engine({ refusePrivate: true });
    for (const transport of ['http', 'impersonate'] as const) {
      const before = sim.hits.get(SITES.plain) ?? 0;
      expect(await guarded.check(byName(`plain by ${transport}`), 'alice'), transport).toMatchObject({
        status: 'error',
        reason: 'blocked_destination',
      });
      expect(sim.hits.get(SITES.plain) ?? 0, transport).toBe(before);
    }
  });

  it('sends a request again through impersonate when the connection closed under it, with no retry to spend', async () => {
    const outcome = await engine({ retries: 0 }).check(byName('closed once by impersonate'), 'alice');
    expect(outcome.status).toBe('hit');
    expect(closedOnce.closed).toBe(2);
  });

  it('reads no more than the body cap through impersonate', async () => {
    const capped = engine({ bodyCapBytes: 4096 });
    const outcome = await capped.check(byName('huge by impersonate'), 'alice');
    expect(outcome).toMatchObject({ status: 'unknown', evidence: { httpStatus: 200 } });
    expect(outcome.evidence.bytesRead).toBeLessThanOrEqual(4096);
  });

  it('ends a browser check unknown, needs_browser, when no browser is installed, sending nothing', async () => {
    const without = engine({ browserPath: '/nonexistent/chromium' });
    const before = sim.hits.get(SITES.plain) ?? 0;
    const outcome = await without.check(byName('plain by browser'), 'alice');
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'needs_browser', evidence: { attempts: 0 } });
    expect(outcome.evidence.rule).toContain('/nonexistent/chromium');
    expect(sim.hits.get(SITES.plain) ?? 0).toBe(before);
  });

  it('ends a browser check unknown, needs_browser, when the browser could not trust the configured CA', async () => {
    const trusting = engineFor(sim, catalogue, {});
    engines.push(trusting);
    const before = sim.hits.get(SITES.plain) ?? 0;
    const outcome = await trusting.check(byName('plain by browser'), 'alice');
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'needs_browser', evidence: { attempts: 0 } });
    expect(outcome.evidence.rule).toMatch(/--ca-file/);
    expect(sim.hits.get(SITES.plain) ?? 0).toBe(before);
    // The same engine reads the rest as usual.
    expect(await trusting.check(byName('plain by impersonate'), 'alice')).toMatchObject({ status: 'hit' });
  });

  it.runIf(hasBrowser)(
    'refuses a private destination and keeps to the body cap through the browser',
    async () => {
      const guarded = engine({ refusePrivate: true, bodyCapBytes: 4096 });
      const before = sim.hits.get(SITES.plain) ?? 0;
      expect(await guarded.check(byName('plain by browser'), 'alice')).toMatchObject({
        status: 'error',
        reason: 'blocked_destination',
      });
      expect(sim.hits.get(SITES.plain) ?? 0).toBe(before);
      const capped = engine({ bodyCapBytes: 4096 });
      const outcome = await capped.check(byName('huge by browser'), 'alice');
      expect(outcome).toMatchObject({ status: 'unknown', evidence: { httpStatus: 200 } });
      expect(outcome.evidence.bytesRead).toBeLessThanOrEqual(4096);
    },
    120_000,
  );
});

describe('an egress identity through a proxy', () => {
  const sim = new SimWeb({ ca, routes: [site(SITES.handshake, 'handshake'), site(SITES.plain)] });
  /** What the proxy was asked to connect to. */
  const asked: string[] = [];
  /** A CONNECT proxy that tunnels every request to the sim's HTTPS port. */
  const proxy = createServer();
  proxy.on('connect', (req, socket: Socket) => {
    asked.push(req.url ?? '');
    const tunnel = connect(sim.tlsPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      tunnel.pipe(socket).pipe(tunnel);
    });
    tunnel.on('error', () => socket.destroy());
    socket.on('error', () => tunnel.destroy());
  });
  let engine: Engine;
  let catalogue: Catalogue;

  beforeAll(async () => {
    await sim.start();
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    catalogue = catalogueOf([
      spec('plain by impersonate', SITES.plain, 'impersonate'),
      spec('handshake by impersonate', SITES.handshake, 'impersonate'),
    ]);
    const { port } = proxy.address() as AddressInfo;
    // No --insecure: impit trusts the sim's CA (--ca-file) as the http path does.
    engine = engineFor(sim, catalogue, { egress: [`proxy:http://127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await engine?.close();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await sim.stop();
  });

  it('sends impersonate checks through the proxy, the handshake still its own, trusting the CA file', async () => {
    const [plain, guarded] = catalogue.platforms;
    expect(await engine.check(plain!, 'alice')).toMatchObject({
      status: 'hit',
      evidence: { transport: 'impersonate' },
    });
    expect(await engine.check(guarded!, 'nobody-here-7')).toMatchObject({ status: 'miss' });
    // The proxy is asked for the site's name, as on the http path (connect-to is not applied to a proxied route).
    expect(asked).toEqual(expect.arrayContaining([`${SITES.plain}:443`, `${SITES.handshake}:443`]));
    // impit trusts one set of CAs per process: an engine without this CA file is refused, not given it.
    const { port } = proxy.address() as AddressInfo;
    const untrusting = engineFor(sim, catalogue, { caFile: '', egress: [`proxy:http://127.0.0.1:${port}`] });
    try {
      const refused = await untrusting.check(plain!, 'alice');
      expect(refused).toMatchObject({ status: 'error' });
      expect(refused.evidence.rule).toMatch(/one set of extra CAs per process/);
    } finally {
      await untrusting.close();
    }
  });
});
