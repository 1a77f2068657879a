/**
 * The refusal of private destinations holds on a proxied route as on a direct one:
 * a redirect to a loopback or private address, or to a name that resolves to one,
 * ends `blocked_destination` and never reaches the proxy. The proxy here serves the
 * one "public" site itself and dials nothing else.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const SITE = 'site.example';

let origin: Server;
let proxy: Server;
let originPort = 0;
let proxyPort = 0;
/** Hosts the engine asked the proxy for. */
const asked: string[] = [];

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Where each name's profile redirects to. */
function redirectFor(name: string): string {
  switch (name) {
    case 'loopback':
      return `http://127.0.0.1:${originPort}/u/alice`;
    case 'ten':
      return 'http://10.1.2.3/u/alice';
    case 'named':
      return `http://inside.example:${originPort}/u/alice`;
    case 'localhost':
      return `http://localhost:${originPort}/u/alice`;
    default:
      return `http://${SITE}/u/${name}`;
  }
}

beforeAll(async () => {
  origin = createServer((req, res) => {
    const [, kind, name = ''] = (req.url ?? '').split('/');
    if (kind === 'go') res.writeHead(302, { location: redirectFor(name) }).end();
    else res.writeHead(name === 'alice' ? 200 : 404).end('profile');
  });
  originPort = await listen(origin);
  proxy = createServer((req, res) => {
    // A forwarded plain-HTTP request (absolute form).
    const url = new URL(req.url ?? '/', 'http://invalid');
    asked.push(url.hostname);
    if (url.hostname !== SITE) return void res.writeHead(502).end();
    const forward = connect(originPort, '127.0.0.1', () => {
      forward.write(`${req.method} ${url.pathname} HTTP/1.1\r\nhost: ${SITE}\r\nconnection: close\r\n\r\n`);
      forward.pipe(res.socket as Socket);
    });
  });
  proxy.on('connect', (req, socket: Socket) => {
    const host = (req.url ?? '').replace(/:\d+$/, '');
    asked.push(host);
    if (host !== SITE) return void socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    const tunnel = connect(originPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      tunnel.pipe(socket).pipe(tunnel);
    });
    tunnel.on('error', () => socket.destroy());
    socket.on('error', () => tunnel.destroy());
  });
  proxyPort = await listen(proxy);
});

afterAll(async () => {
  proxy.closeAllConnections();
  origin.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await new Promise((resolve) => origin.close(resolve));
});

const catalogue = () =>
  catalogueOf([
    entry('Hop', { profile: `http://${SITE}/go/{username}`, check: { redirects: 'follow' } }),
    entry('Loopback', { profile: `http://127.0.0.1:${originPort}/u/{username}` }),
    entry('Ten', { profile: 'http://10.1.2.3/u/{username}' }),
    entry('Named', { profile: `http://inside.example:${originPort}/u/{username}` }),
    entry('Localhost', { profile: `http://localhost:${originPort}/u/{username}` }),
  ]);

function engine(proxied: boolean): Engine {
  const cat = catalogue();
  return createEngine(
    loadConfig(
      {
        refusePrivate: true,
        timeoutMs: 3_000,
        retries: 0,
        // site.example is judged by this public address but reached only through the test proxy,
        // which serves it itself; inside.example maps to loopback, as a name resolving there would.
        connectTo: ['site.example::8.8.8.8:', 'inside.example::127.0.0.1:'],
        ...(proxied ? { proxy: `http://127.0.0.1:${proxyPort}` } : {}),
      },
      {},
    ),
    cat,
  );
}

describe('private destinations behind a proxy', () => {
  it('are refused without a proxy (the reference)', async () => {
    const direct = engine(false);
    try {
      for (const name of ['Loopback', 'Ten', 'Named', 'Localhost']) {
        const platform = direct.catalogue.platforms.find((p) => p.name === name)!;
        expect(await direct.check(platform, 'alice'), name).toMatchObject({
          status: 'error',
          reason: 'blocked_destination',
        });
      }
    } finally {
      await direct.close();
    }
  });

  it('are refused through the proxy, as the first URL and as a redirect', async () => {
    const proxied = engine(true);
    try {
      const hop = proxied.catalogue.platforms.find((p) => p.name === 'Hop')!;
      // The proxied route itself works: a redirect within the public site is followed.
      expect(await proxied.check(hop, 'alice')).toMatchObject({ status: 'hit' });
      asked.length = 0;
      for (const name of ['loopback', 'ten', 'named', 'localhost']) {
        expect(await proxied.check(hop, name), name).toMatchObject({
          status: 'error',
          reason: 'blocked_destination',
        });
      }
      for (const name of ['Loopback', 'Ten', 'Named', 'Localhost']) {
        const platform = proxied.catalogue.platforms.find((p) => p.name === name)!;
        expect(await proxied.check(platform, 'alice'), name).toMatchObject({
          status: 'error',
          reason: 'blocked_destination',
        });
      }
      // Only the public site was asked of the proxy: the first hops, never a refused target.
      expect(asked.every((host) => host === SITE)).toBe(true);
    } finally {
      await proxied.close();
    }
  });
});
