/**
 * The simulated web: two loopback ports, one for HTTP and one for HTTPS, that
 * serve any host name through routes, with a TLS certificate per SNI name made
 * from its own CA. The engine reaches it through `--connect-to :80:127.0.0.1:P1`
 * and `--connect-to :443:127.0.0.1:P2`, keeping real URLs, Host headers and TLS names.
 */

import type { Server } from 'node:http';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { readTlsClientHello, type TlsClientHelloMessage } from 'read-tls-client-hello';
import { type Behaviour, type SimRequest, type SimRoute, wafResponse } from './behaviour.js';
import { defend, HANDSHAKE_FAILURE_ALERT, looksLikeBrowser, refusesHandshake } from './defence.js';
import { type LimitAnswer, limitHeaders, policyHeaders, SiteLimits, type SiteStats } from './site-limits.js';
import { type BrokenTls, CertificateStore, createTestCa, type TestCa } from './tls.js';

export interface SimWebOptions {
  readonly routes?: readonly SimRoute[];
  /** Host names whose certificate is broken, and how. */
  readonly brokenTls?: Readonly<Record<string, BrokenTls>>;
  /** Served at http(s)://sim.userscout.test/__truth (what accounts exist). */
  readonly truth?: () => unknown;
  readonly listenHost?: string;
  /** HTTP port (0 = any free one); HTTPS listens on the next free port. */
  readonly port?: number;
  readonly tlsPort?: number;
  /** Reuse a CA (e.g. to keep one across restarts). */
  readonly ca?: TestCa;
  /** How long an idle keep-alive connection stays open (ms). @default 5000 */
  readonly keepAliveTimeoutMs?: number;
  /** Keep every request's time, site and client address (`siteLog`), for tests. @default false */
  readonly logRequests?: boolean;
}

const CONTROL_HOST = 'sim.userscout.test';
const MAX_REQUEST_BODY = 64 * 1024;

type Encoding = NonNullable<Extract<Behaviour, { kind: 'respond' }>['encoding']>;

/** Compressed bodies of byte bodies, kept while the body is (a body given in bytes is usually served again). */
const compressedBodies = new WeakMap<Uint8Array, Partial<Record<Encoding, Buffer>>>();

function compress(body: Uint8Array, encoding: Encoding): Buffer {
  return encoding === 'gzip'
    ? gzipSync(body)
    : encoding === 'br'
      ? brotliCompressSync(body)
      : deflateSync(body);
}

/** `body` compressed; the same bytes again for a body in bytes the sim keeps (compression is deterministic). */
function compressed(body: Uint8Array, encoding: Encoding): Buffer {
  let byEncoding = compressedBodies.get(body);
  const kept = byEncoding?.[encoding];
  if (kept) return kept;
  const bytes = compress(body, encoding);
  byEncoding ??= {};
  byEncoding[encoding] = bytes;
  compressedBodies.set(body, byEncoding);
  return bytes;
}

/** The route answers this (lower-case) host. */
function routeMatches(route: SimRoute, host: string): boolean {
  return typeof route.host === 'string' ? route.host === host : route.host.test(host);
}

/** The host name a ClientHello asks for (SNI), lower-case. */
function sniOf(hello: TlsClientHelloMessage): string | undefined {
  const sni = hello.extensions.find((e) => e.id === 0)?.data as { serverName?: unknown } | null | undefined;
  return typeof sni?.serverName === 'string' ? sni.serverName.toLowerCase() : undefined;
}

export class SimWeb {
  readonly #routes: SimRoute[];
  readonly #options: SimWebOptions;
  readonly #sockets = new Set<Socket>();
  /** Each TLS connection's ClientHello, by its raw TCP socket. */
  readonly #hellos = new WeakMap<Socket, TlsClientHelloMessage>();
  /** When each connection began (performance.now()), until its first request is read. */
  readonly #connectedAt = new WeakMap<Socket, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #rateCounts = new Map<string, number>();
  #servers: Server[] = [];
  #ca: TestCa | undefined;
  #certificates: CertificateStore | undefined;
  #port = 0;
  #tlsPort = 0;
  readonly #sites: SiteLimits;
  /** Requests answered or accepted, by host. */
  readonly hits = new Map<string, number>();
  /**
   * Requests to defended sites by host, by what their client looked like: a handshake that was
   * not a browser's (`plain`: Node's, curl's) and the answers the defence gave instead of the page.
   */
  readonly defended = new Map<string, { plain: number; refused: number }>();

  constructor(options: SimWebOptions = {}) {
    this.#options = options;
    this.#routes = [...(options.routes ?? [])];
    this.#sites = new SiteLimits({ log: options.logRequests ?? false });
  }

  /**
   * Requests by site and client address, and the 429s the sites' rate limits
   * answered; also served at http(s)://sim.userscout.test/__stats.
   */
  stats(): SiteStats {
    return this.#sites.stats();
  }

  /** Every request to a site, in order, when `logRequests` is on. */
  get siteLog() {
    return this.#sites.log;
  }

  addRoute(route: SimRoute): void {
    this.#routes.push(route);
  }

  /** The HTTP port. */
  get port(): number {
    return this.#port;
  }

  /** The HTTPS port. */
  get tlsPort(): number {
    return this.#tlsPort;
  }

  /** PEM of the CA that signs every certificate the sim serves. */
  get caCert(): string {
    if (!this.#ca) throw new Error('the simulated web is not started');
    return this.#ca.cert;
  }

  /** The curl-style rules that send every connection here: port 80 to HTTP, 443 to HTTPS. */
  get connectTo(): string[] {
    const host = this.#options.listenHost ?? '127.0.0.1';
    return [`:80:${host}:${this.#port}`, `:443:${host}:${this.#tlsPort}`];
  }

  get requestCount(): number {
    let n = 0;
    for (const v of this.hits.values()) n += v;
    return n;
  }

  async start(): Promise<{ port: number; tlsPort: number; caCert: string }> {
    this.#ca = this.#options.ca ?? (await createTestCa());
    const store = new CertificateStore(this.#ca);
    this.#certificates = store;
    const broken = this.#options.brokenTls ?? {};
    const handler = (req: IncomingMessage, res: ServerResponse) => this.#handle(req, res);
    const keepAliveTimeout = this.#options.keepAliveTimeoutMs ?? 5000;
    const http = createHttpServer({ keepAliveTimeout }, handler);
    const https = createHttpsServer(
      {
        keepAliveTimeout,
        SNICallback: (name, cb) =>
          store.context(name.toLowerCase(), broken[name.toLowerCase()]).then(
            (ctx) => cb(null, ctx),
            (err: Error) => cb(err, undefined),
          ),
      },
      handler,
    );
    // Every handshake's ClientHello is read, for the sites that refuse one not made by a browser.
    this.#readClientHellos(https);
    const listenHost = this.#options.listenHost ?? '127.0.0.1';
    const listen = async (server: Server, port: number): Promise<number> => {
      server.on('connection', (socket: Socket) => {
        this.#connectedAt.set(socket, performance.now());
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
      });
      server.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, listenHost, () => resolve());
      });
      this.#servers.push(server);
      const address = server.address();
      return typeof address === 'object' && address ? address.port : 0;
    };
    this.#port = await listen(http, this.#options.port ?? 0);
    this.#tlsPort = await listen(
      https,
      this.#options.tlsPort ?? (this.#options.port ? this.#options.port + 1 : 0),
    );
    return { port: this.#port, tlsPort: this.#tlsPort, caCert: this.#ca.cert };
  }

  /**
   * Issues the certificates of these host names now, so no first connection waits for one
   * (benchmarks). `namesPerCertificate` above 1 gives that many names one certificate: a test
   * that reaches a thousand hosts then spends its time on the checks, not on signing.
   */
  async prepareTls(hostnames: Iterable<string>, namesPerCertificate = 1): Promise<void> {
    const store = this.#certificates;
    if (!store) throw new Error('the simulated web is not started');
    const broken = this.#options.brokenTls ?? {};
    const names = [...new Set([...hostnames].map((h) => h.toLowerCase()))];
    await Promise.all([
      store.prepare(
        names.filter((name) => !broken[name]),
        namesPerCertificate,
      ),
      ...names.filter((name) => broken[name]).map((name) => store.context(name, broken[name])),
    ]);
  }

  async stop(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const s of this.#sockets) s.destroy();
    const servers = this.#servers;
    this.#servers = [];
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  /**
   * Reads each connection's ClientHello before TLS starts (as read-tls-client-hello's
   * `trackClientHellos` does), kept for the sites that read it once the handshake is done;
   * a site that refuses at the TLS layer (defence.ts `refusesHandshake`) is sent a
   * handshake_failure alert instead, and the connection ends there.
   */
  #readClientHellos(server: TlsServer): void {
    const startTls = server.listeners('connection')[0] as ((socket: Socket) => void) | undefined;
    if (!startTls) throw new Error('the HTTPS server does not start TLS on its connections');
    server.removeListener('connection', startTls);
    server.on('connection', async (socket: Socket) => {
      let hello: TlsClientHelloMessage | undefined;
      try {
        hello = await readTlsClientHello(socket);
      } catch {
        // Not a TLS hello: the TLS layer answers it as it would any other.
      }
      const host = hello ? sniOf(hello) : undefined;
      if (host !== undefined && refusesHandshake(this.#siteRoute(host)?.defence, hello)) {
        const seen = this.defended.get(host) ?? { plain: 0, refused: 0 };
        this.defended.set(host, { plain: seen.plain + 1, refused: seen.refused + 1 });
        socket.on('error', () => socket.destroy());
        socket.end(HANDSHAKE_FAILURE_ALERT);
        return;
      }
      if (hello) this.#hellos.set(socket, hello);
      startTls.call(server, socket);
    });
  }

  /** The first route for `host` that names a defence: how its site defends itself at the handshake. */
  #siteRoute(host: string): SimRoute | undefined {
    return this.#routes.find((route) => route.defence !== undefined && routeMatches(route, host));
  }

  #later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  /** When the client began sending `req`: its connection's start for a connection's first request (site-limits.ts). */
  #sentFrom(req: IncomingMessage): number | undefined {
    // Under TLS the raw TCP socket, the one the connection event gave, is the TLS socket's parent.
    const raw = (req.socket as Socket & { _parent?: Socket })._parent ?? req.socket;
    const started = this.#connectedAt.get(raw);
    this.#connectedAt.delete(raw);
    return started;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      this.hits.set(host, (this.hits.get(host) ?? 0) + 1);
      const request: SimRequest = {
        method: req.method ?? 'GET',
        host,
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        tls: 'encrypted' in req.socket,
        remoteAddress: req.socket.remoteAddress ?? '',
      };
      let behaviour: Behaviour | undefined;
      if (host === CONTROL_HOST && request.path.startsWith('/__truth')) {
        behaviour = {
          kind: 'respond',
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(this.#options.truth?.() ?? {}),
        };
      } else if (host === CONTROL_HOST && request.path.startsWith('/__stats')) {
        behaviour = {
          kind: 'respond',
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(this.stats()),
        };
      } else {
        let site = host;
        let perSecond: number | undefined;
        let answer: LimitAnswer = 'retry-after';
        for (const route of this.#routes) {
          if (!routeMatches(route, host)) continue;
          behaviour = route.handle(request);
          if (behaviour) {
            if (route.limit) ({ key: site, perSecond, answer = 'retry-after' } = route.limit);
            if (route.defence) {
              // Under TLS the raw TCP socket, whose hello was read, is the TLS socket's parent.
              const raw = (req.socket as Socket & { _parent?: Socket })._parent ?? req.socket;
              const browserHello = looksLikeBrowser(this.#hellos.get(raw));
              const answer = defend(route.defence, request, browserHello);
              const seen = this.defended.get(host) ?? { plain: 0, refused: 0 };
              this.defended.set(host, {
                plain: seen.plain + (browserHello ? 0 : 1),
                refused: seen.refused + (answer ? 1 : 0),
              });
              behaviour = answer ?? behaviour;
            }
            break;
          }
        }
        const retryAfter = this.#sites.admit(
          site,
          request.remoteAddress,
          perSecond,
          this.#sentFrom(req),
          `${host}${request.path}`,
        );
        if (retryAfter !== undefined && perSecond !== undefined) {
          behaviour = {
            kind: 'respond',
            status: 429,
            headers: limitHeaders(answer, perSecond, retryAfter),
            body: 'Too Many Requests',
          };
        } else if (perSecond !== undefined && behaviour?.kind === 'respond') {
          const policy = policyHeaders(answer, perSecond);
          if (policy) {
            behaviour = { ...behaviour, headers: { ...behaviour.headers, ...policy } };
            this.#sites.told(site, request.remoteAddress);
          }
        }
      }
      this.#perform(
        behaviour ?? {
          kind: 'respond',
          status: 404,
          body: '<html><title>404</title>no simulated page here</html>',
        },
        request,
        res,
      );
    });
  }

  #perform(behaviour: Behaviour, request: SimRequest, res: ServerResponse): void {
    switch (behaviour.kind) {
      case 'respond': {
        const send = () => {
          if (res.destroyed) return;
          const text = behaviour.body ?? '';
          let body: Uint8Array = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
          const headers: Record<string, string> = {
            'content-type': 'text/html; charset=utf-8',
            ...behaviour.headers,
          };
          if (behaviour.encoding) {
            body =
              typeof text === 'string'
                ? compress(body, behaviour.encoding)
                : compressed(text, behaviour.encoding);
            headers['content-encoding'] = behaviour.encoding;
          }
          headers['content-length'] = String(body.length);
          res.writeHead(behaviour.status, headers);
          res.end(request.method === 'HEAD' ? undefined : body);
        };
        if (behaviour.delayMs && behaviour.delayMs > 0) this.#later(behaviour.delayMs, send);
        else send();
        return;
      }
      case 'hang':
        return;
      case 'reset':
        this.#later(behaviour.delayMs ?? 0, () => {
          // Under TLS the raw TCP socket is the TLS socket's parent; an RST needs the raw one.
          const raw = (res.socket as (Socket & { _parent?: Socket }) | null)?._parent ?? res.socket;
          try {
            raw?.resetAndDestroy();
          } catch {
            raw?.destroy();
          }
        });
        return;
      case 'drip': {
        res.writeHead(behaviour.status, { 'content-type': 'text/html; charset=utf-8' });
        let offset = 0;
        const step = () => {
          if (res.destroyed) return;
          const piece = behaviour.body.slice(offset, offset + behaviour.chunkBytes);
          offset += behaviour.chunkBytes;
          if (offset >= behaviour.body.length) {
            res.end(piece);
            return;
          }
          res.write(piece);
          this.#later(behaviour.intervalMs, step);
        };
        step();
        return;
      }
      case 'huge': {
        res.writeHead(behaviour.status, { 'content-type': 'text/html; charset=utf-8' });
        const filler = Buffer.alloc(64 * 1024, '<p>lorem ipsum dolor sit amet</p>\n');
        const marker = behaviour.marker ? Buffer.from(behaviour.marker) : Buffer.alloc(0);
        let left = behaviour.bytes;
        if (behaviour.markerAt === 'start' && marker.length) {
          res.write(marker);
          left -= marker.length;
        }
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            const endMarker = behaviour.markerAt !== 'start' ? marker.length : 0;
            const n = Math.min(filler.length, left - endMarker);
            if (n <= 0) break;
            left -= n;
            if (!res.write(filler.subarray(0, n))) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end(behaviour.markerAt !== 'start' ? marker : undefined);
        };
        pump();
        return;
      }
      case 'rate-limit': {
        const key = `${request.host}${request.path}`;
        const count = this.#rateCounts.get(key) ?? 0;
        if (count < behaviour.times) {
          this.#rateCounts.set(key, count + 1);
          this.#perform(
            {
              kind: 'respond',
              status: 429,
              headers: behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter },
              body: 'Too Many Requests',
            },
            request,
            res,
          );
          return;
        }
        this.#perform(behaviour.after, request, res);
        return;
      }
      case 'waf':
        this.#perform(wafResponse(behaviour.vendor), request, res);
        return;
    }
  }
}
