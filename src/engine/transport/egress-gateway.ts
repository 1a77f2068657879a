/**
 * The way out of the transports that open their own connections (impit, Chromium):
 * a forward proxy on loopback, only for this process (a random password), that
 * opens each connection as the `http` path's connector does: through `--connect-to`,
 * refusing private destinations (a name is resolved here, and what is checked is what
 * is connected to), from the identity's source address or through its proxy. TLS runs
 * end to end through the tunnel, so the client's own handshake is what the site sees.
 */
import { randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SocksClient } from 'socks';
import { type ConnectToRule, resolveConnectTo } from './connect-to.js';
import { blockedDestination, guardedLookup } from './destination-guard.js';
import { isPrivateAddress } from './private-address.js';

export interface GatewayOptions {
  readonly connectTo: readonly ConnectToRule[];
  readonly refusePrivate: boolean;
  /** The identity's source address; absent: the default route. */
  readonly localAddress?: string | undefined;
  /** The identity's proxy (http://, https://, socks5://); absent: direct. */
  readonly proxy?: string | undefined;
  readonly connectTimeoutMs: number;
}

/** Where the gateway listens, and the credentials its clients present. */
export interface GatewayAddress {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

const USER = 'userscout';
/** Refusals remembered for the clients that ask why (browser.ts); more are forgotten all at once. */
const REFUSALS_KEPT = 1024;

/** Resolves where a connection for host:port goes, refusing a private destination. */
function destination(
  options: GatewayOptions,
  host: string,
  port: number,
): Promise<{ host: string; port: number }> {
  const target = resolveConnectTo(options.connectTo, host, port);
  if (!options.refusePrivate) return Promise.resolve(target);
  if (isIP(target.host))
    return isPrivateAddress(target.host)
      ? Promise.reject(blockedDestination(target.host))
      : Promise.resolve(target);
  return new Promise((resolve, reject) =>
    guardedLookup(target.host, {}, (error, address) =>
      error ? reject(error) : resolve({ host: String(address), port: target.port }),
    ),
  );
}

/**
 * A TCP connection to host:port as the identity makes it: directly, or through its proxy.
 * As on the http path, a proxy is asked for the name itself (it resolves it), after the
 * destination `--connect-to` maps it to was checked here.
 */
async function open(options: GatewayOptions, host: string, port: number): Promise<Socket> {
  const checked = await destination(options, host, port);
  const timeout = options.connectTimeoutMs;
  if (!options.proxy) {
    return connected(
      netConnect({
        host: checked.host,
        port: checked.port,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      }),
      timeout,
    );
  }
  const target = { host, port };
  const proxy = new URL(options.proxy);
  if (proxy.protocol.startsWith('socks')) {
    const { socket } = await SocksClient.createConnection({
      proxy: {
        host: proxy.hostname,
        port: Number(proxy.port) || 1080,
        type: 5,
        ...(proxy.username
          ? { userId: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) }
          : {}),
      },
      command: 'connect',
      destination: target,
      timeout,
    });
    return socket;
  }
  const https = proxy.protocol === 'https:';
  const port0 = Number(proxy.port) || (https ? 443 : 80);
  const raw = await connected(
    https
      ? tlsConnect({ host: proxy.hostname, port: port0, servername: proxy.hostname })
      : netConnect({ host: proxy.hostname, port: port0 }),
    timeout,
  );
  const auth = proxy.username
    ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n`
    : '';
  const authority = `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
  raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  await tunnelled(raw, timeout);
  return raw;
}

function connected<S extends Socket>(socket: S, timeoutMs: number): Promise<S> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('connect timeout'), { code: 'UND_ERR_CONNECT_TIMEOUT' }));
    }, timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once(socket.constructor.name === 'TLSSocket' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
  });
}

/** Reads an upstream proxy's answer to CONNECT, up to the end of its headers. */
function tunnelled(socket: Socket, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let head = '';
    const timer = setTimeout(() => fail(new Error('the proxy did not answer CONNECT in time')), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return head.length > 16_384 ? fail(new Error('the proxy answer is too long')) : undefined;
      clearTimeout(timer);
      socket.off('data', onData);
      if (!/^HTTP\/1\.[01] 2\d\d/.test(head))
        return fail(new Error(`the proxy refused: ${head.split('\r\n')[0]}`));
      if (end + 4 < head.length) socket.unshift(Buffer.from(head.slice(end + 4), 'latin1'));
      resolve();
    };
    socket.on('data', onData);
    socket.once('error', fail);
  });
}

/** A forward proxy for this process's transports; `close` ends it and every tunnel. */
export class EgressGateway {
  readonly #options: GatewayOptions;
  readonly #password = randomBytes(18).toString('base64url');
  readonly #sockets = new Set<Socket>();
  /** Why recent connections were refused, by host:port: what a client that reports only "tunnel failed" asks. */
  readonly #refusals = new Map<string, string>();
  #server: Server | undefined;
  #address: Promise<GatewayAddress> | undefined;

  constructor(options: GatewayOptions) {
    this.#options = options;
  }

  /** Starts listening on the first call; the same address afterwards. */
  address(): Promise<GatewayAddress> {
    this.#address ??= this.#listen();
    return this.#address;
  }

  async #listen(): Promise<GatewayAddress> {
    const server = createServer((req, res) => void this.#forward(req, res));
    server.on(
      'connect',
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.#tunnel(req, socket, head),
    );
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { host: '127.0.0.1', port, username: USER, password: this.#password };
  }

  /** The code of the last refusal of a connection to host:port, if it was refused. */
  refusal(host: string, port: number): string | undefined {
    return this.#refusals.get(`${host.toLowerCase()}:${port}`);
  }

  #refused(host: string, port: number, error: unknown): void {
    if (this.#refusals.size >= REFUSALS_KEPT) this.#refusals.clear();
    this.#refusals.set(`${host.toLowerCase()}:${port}`, refusalCode(error));
  }

  #authorised(req: IncomingMessage): boolean {
    const expected = `Basic ${Buffer.from(`${USER}:${this.#password}`).toString('base64')}`;
    return req.headers['proxy-authorization'] === expected;
  }

  /** CONNECT host:port: a tunnel (an https:// URL). */
  async #tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => undefined);
    if (!this.#authorised(req)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="userscout"\r\n\r\n',
      );
      return;
    }
    const { hostname, port } = new URL(`http://${req.url ?? ''}`);
    let upstream: Socket;
    const host = hostname.replace(/^\[|\]$/g, '');
    try {
      upstream = await open(this.#options, host, Number(port) || 443);
    } catch (error) {
      this.#refused(host, Number(port) || 443, error);
      client.end(
        `HTTP/1.1 ${refusalStatus(error)} Refused\r\nX-Userscout-Refusal: ${refusalCode(error)}\r\n\r\n`,
      );
      return;
    }
    this.#sockets.add(upstream);
    upstream.once('close', () => this.#sockets.delete(upstream));
    // A reset is passed on as one: closed quietly instead, a reset in the TLS handshake would
    // read to the client (impit) as a site ending the handshake, a refusal (transport-error.ts).
    upstream.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? client.resetAndDestroy() : client.destroy(),
    );
    client.on('close', () => upstream.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  }

  /** An absolute-form request (an http:// URL), sent on a connection opened as a tunnel's is. */
  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.#authorised(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="userscout"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    let socket: Socket;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    try {
      socket = await open(this.#options, host, Number(url.port) || 80);
    } catch (error) {
      this.#refused(host, Number(url.port) || 80, error);
      res.writeHead(refusalStatus(error), { 'x-userscout-refusal': refusalCode(error) }).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const out = httpRequest({
      createConnection: () => socket,
      method: req.method,
      path: url.pathname + url.search,
      headers,
      agent: false,
    });
    out.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    res.on('close', () => socket.destroy());
    req.pipe(out);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The refusal's code, passed to the client in a header so its transport can name the reason. */
function refusalCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'ECONNREFUSED';
}

function refusalStatus(error: unknown): number {
  const code = refusalCode(error);
  return code === 'EUSERSCOUT_BLOCKED_DESTINATION' ? 403 : code.includes('TIMEOUT') ? 504 : 502;
}
