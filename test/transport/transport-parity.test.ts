/**
 * What the http path honours, honoured by the other transports too, on the simulated
 * web: the body cap (a page past it, with and without Content-Length, is read no
 * further through the browser than through http, its connection closed), and the egress identities (a
 * proxy sees the browser's requests; a source address is where impersonate's and
 * the browser's requests come from).
 */
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import type { Engine } from '../../src/engine/engine.js';
import type { SimRequest } from '../../src/sim/behaviour.js';
import { SimWeb } from '../../src/sim/server.js';
import { createTestCa } from '../../src/sim/tls.js';
import { hasBrowser } from '../support/browser-guard.js';
import { catalogueOf, entry, platformNamed } from '../support/catalogue.js';
import { SharedBrowser } from '../support/shared-browser.js';

/** One CA for every sim of this file: impit trusts one set of CAs per process (impit-trust.ts). */
const ca = await createTestCa();

const TRANSPORTS = ['http', 'impersonate', 'browser'] as const;

/**
 * The engines of this file share one Chromium, each check in a context of its own: what is
 * proved here is what a check reads and where its requests go, not a browser's life.
 */
const browsers = new SharedBrowser();
afterAll(() => browsers.close());

/** A platform on `host` through `transport`. */
function spec(
  name: string,
  host: string,
  transport: PlatformSpec['transport'],
  extra: Partial<PlatformSpec> = {},
) {
  return entry(name, {
    home: `https://${host}/`,
    profile: `https://${host}/u/{username}`,
    transport,
    ...extra,
  });
}

/** The site has `alice`; every request's client address is recorded by host. */
function plain(host: string, from: Map<string, string[]>) {
  return {
    host,
    handle: (req: SimRequest) => {
      from.set(host, [...(from.get(host) ?? []), req.remoteAddress]);
      const name = /^\/u\/([^/?]+)/.exec(req.path)?.[1];
      if (name === undefined) return undefined;
      return name === 'alice'
        ? { kind: 'respond' as const, status: 200, body: '<html><title>alice</title><h1>alice</h1></html>' }
        : { kind: 'respond' as const, status: 404, body: '<html><title>Not found</title></html>' };
    },
  };
}

/**
 * A CONNECT proxy on loopback that tunnels every request to the sim's HTTPS port: what it
 * was asked to connect to, in order, and the bytes the sim sent back by that authority.
 */
class SimProxy {
  readonly asked: string[] = [];
  readonly down = new Map<string, number>();
  readonly #server = createServer();

  constructor(sim: SimWeb) {
    this.#server.on('connect', (req, socket: Socket) => {
      const authority = req.url ?? '';
      this.asked.push(authority);
      const tunnel = connect(sim.tlsPort, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        tunnel.on('data', (chunk: Buffer) =>
          this.down.set(authority, (this.down.get(authority) ?? 0) + chunk.length),
        );
        tunnel.pipe(socket).pipe(tunnel);
      });
      tunnel.on('error', () => socket.destroy());
      socket.on('error', () => tunnel.destroy());
    });
  }

  /** Listens; the egress identity that goes through it. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', () => resolve()));
    return `proxy:http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

describe('the body cap, through every transport', () => {
  const CAP = 16_384;
  const PAGE_BYTES = 32 * 1024 * 1024;
  /**
   * What only a client that read the page to its end does: its title becomes the marker
   * the platform's rule looks for, and it asks for `/reached-end`.
   */
  const TAIL = `<script>document.title = 'read-' + 'to-the-end'; fetch('/reached-end');</script></body></html>`;
  const filler = '<p>lorem ipsum dolor sit amet</p>\n'.repeat(Math.ceil(PAGE_BYTES / 34));
  /** Past the cap by megabytes, with Content-Length. */
  const SIZED = 'sized.test';
  /** The same, chunked: no Content-Length says how long it is. */
  const CHUNKED = 'chunked.test';
  /** Chunked, and long enough that reading it to its end would show. */
  const ENDLESS = 'endless.test';
  const ENDLESS_BYTES = 128 * 1024 * 1024;
  /** A single-page site: its document is small, its script bundle past the cap of one answer, and the page says nothing until the bundle ran. */
  const BUNDLED = 'bundled.test';
  const BUNDLE = `/* ${'x'.repeat(CAP * 3)} */ document.title = 'read-' + 'to-the-end';`;
  const ended: string[] = [];
  const sim = new SimWeb({
    ca,
    routes: [
      {
        host: SIZED,
        handle: (req: SimRequest) => {
          if (req.path === '/reached-end') ended.push(req.host);
          return {
            kind: 'respond' as const,
            status: 200,
            body: `<html><head><title>a page</title></head><body>${filler}${TAIL}`,
          };
        },
      },
      {
        host: CHUNKED,
        handle: (req: SimRequest) => {
          if (req.path === '/reached-end') ended.push(req.host);
          return { kind: 'huge' as const, status: 200, bytes: PAGE_BYTES, marker: TAIL };
        },
      },
      {
        host: ENDLESS,
        handle: () => ({ kind: 'huge' as const, status: 200, bytes: ENDLESS_BYTES }),
      },
      {
        host: BUNDLED,
        // Sent a piece at a time, so Chromium counts it while it comes.
        handle: (req: SimRequest) =>
          req.path === '/bundle.js'
            ? { kind: 'drip' as const, status: 200, body: BUNDLE, chunkBytes: 4096, intervalMs: 20 }
            : req.path === '/u/alice'
              ? {
                  kind: 'respond' as const,
                  status: 200,
                  body: '<html><head><title>loading</title><script src="/bundle.js"></script></head><body></body></html>',
                }
              : { kind: 'respond' as const, status: 404, body: 'no such account' },
      },
      plain('plain.test', new Map()),
    ],
  });
  const proxy = new SimProxy(sim);
  let catalogue: Catalogue;
  let engine: Engine;
  const platform = (name: string) => platformNamed(catalogue, name);

  beforeAll(async () => {
    await sim.start();
    const through = await proxy.start();
    const detect = { exists: [{ text: 'read-to-the-end' }], missing: [{ status: [404] }] };
    const specs: PlatformSpec[] = [];
    for (const transport of TRANSPORTS) {
      specs.push(spec(`sized by ${transport}`, SIZED, transport, { detect }));
      specs.push(spec(`chunked by ${transport}`, CHUNKED, transport, { detect }));
      specs.push(spec(`endless by ${transport}`, ENDLESS, transport, { detect }));
    }
    specs.push(spec('plain by browser', 'plain.test', 'browser'));
    specs.push(spec('bundled by browser', BUNDLED, 'browser', { detect }));
    catalogue = catalogueOf(specs);
    // The browser cannot trust the sim's CA (browser.ts); its first launch takes seconds. Through
    // the proxy, what each connection carried is counted.
    engine = browsers.engineFor(sim, catalogue, {
      insecureTls: true,
      bodyCapBytes: CAP,
      timeoutMs: 30_000,
      retries: 0,
      browserContexts: 1,
      egress: [through],
    });
  });
  afterAll(async () => {
    await proxy.stop();
    await sim.stop();
  });

  it.runIf(hasBrowser)(
    'closes the connection of a page past the cap rather than read it to its end, as http does',
    async () => {
      for (const transport of TRANSPORTS) {
        proxy.down.clear();
        const outcome = await engine.check(platform(`endless by ${transport}`), 'alice');
        expect(outcome, transport).toMatchObject({ status: 'unknown', evidence: { bytesRead: CAP } });
        // What was read, and what sat in buffers on the way, when the connection closed. The browser
        // stops once the count reaches this process, later than http: megabytes past the cap, not the whole.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(proxy.down.get(`${ENDLESS}:443`), transport).toBeLessThan(ENDLESS_BYTES / 4);
      }
    },
    90_000,
  );

  for (const site of ['sized', 'chunked'])
    it.runIf(hasBrowser)(
      `reads a ${site} page past the cap no further through the browser than through http`,
      async () => {
        const http = await engine.check(platform(`${site} by http`), 'alice');
        // The end of the page is past the cap: http never sees the marker its script would make.
        expect(http).toMatchObject({ status: 'unknown', evidence: { httpStatus: 200 } });
        expect(http.evidence.bytesRead).toBe(CAP);
        for (const transport of ['impersonate', 'browser'] as const) {
          ended.length = 0;
          const outcome = await engine.check(platform(`${site} by ${transport}`), 'alice');
          expect(outcome, transport).toMatchObject({
            status: http.status,
            reason: http.reason,
            evidence: { httpStatus: 200, bytesRead: CAP },
          });
          // Nothing past the cap was run: the script at the page's end never asked for anything.
          expect(ended, transport).toEqual([]);
        }
        // The tab that stopped reading serves the next check as usual.
        expect(await engine.check(platform('plain by browser'), 'alice')).toMatchObject({
          status: 'hit',
          evidence: { transport: 'browser' },
        });
      },
      90_000,
    );

  it.runIf(hasBrowser)(
    "runs a page's script bundle past the cap of one answer, within its subresources' own cap",
    async () => {
      const outcome = await engine.check(platform('bundled by browser'), 'alice');
      // The bundle wrote the page's words: the page is read as a user sees it, not stopped at the cap.
      expect(outcome).toMatchObject({ status: 'hit', evidence: { transport: 'browser', httpStatus: 200 } });
    },
    90_000,
  );
});

describe('egress identities, through every transport', () => {
  /** Client addresses each site saw, by host. */
  const from = new Map<string, string[]>();
  const sim = new SimWeb({ ca, routes: [plain('plain.test', from), plain('other.test', from)] });
  const proxy = new SimProxy(sim);
  let through = '';
  let catalogue: Catalogue;
  const engine = (egress: string[]) =>
    // The browser cannot trust the sim's CA (browser.ts); its first launch takes seconds.
    browsers.engineFor(sim, catalogue, { insecureTls: true, timeoutMs: 30_000, retries: 0, egress });
  const platform = (name: string) => platformNamed(catalogue, name);

  beforeAll(async () => {
    await sim.start();
    through = await proxy.start();
    const specs: PlatformSpec[] = [];
    for (const transport of TRANSPORTS) {
      specs.push(spec(`plain by ${transport}`, 'plain.test', transport));
      specs.push(spec(`other by ${transport}`, 'other.test', transport));
    }
    catalogue = catalogueOf(specs);
  });
  afterAll(async () => {
    await proxy.stop();
    await sim.stop();
  });

  it.runIf(hasBrowser)(
    'sends browser checks through the proxy of their identity',
    async () => {
      const proxied = engine([through]);
      proxy.asked.length = 0;
      expect(await proxied.check(platform('plain by browser'), 'alice')).toMatchObject({
        status: 'hit',
        evidence: { transport: 'browser' },
      });
      expect(await proxied.check(platform('plain by browser'), 'nobody-here-7')).toMatchObject({
        status: 'miss',
      });
      // The proxy is asked for the site's name, as on the http path.
      expect(proxy.asked).toContain('plain.test:443');
      expect(proxy.asked.every((authority) => authority === 'plain.test:443')).toBe(true);
    },
    90_000,
  );

  // The whole of 127.0.0.0/8 is this machine's: 127.0.0.2 is a source address the sim tells apart.
  it.runIf(hasBrowser)(
    'sends every transport from the source address of its identity',
    async () => {
      const sourced = engine(['addr:127.0.0.2']);
      for (const transport of TRANSPORTS) {
        from.clear();
        expect(await sourced.check(platform(`other by ${transport}`), 'alice'), transport).toMatchObject({
          status: 'hit',
        });
        expect(from.get('other.test')?.length, transport).toBeGreaterThan(0);
        expect(new Set(from.get('other.test')), transport).toEqual(new Set(['127.0.0.2']));
      }
    },
    90_000,
  );
});
