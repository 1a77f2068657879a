import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectTo } from '../../../src/engine/transport/connect-to.js';
import { createDispatcher } from '../../../src/engine/transport/dispatcher.js';

/** A TCP server that accepts every connection and never answers its TLS handshake. */
let server: Server;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  for (const socket of sockets) socket.destroy();
  server.close();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('connections opened at once (connectsAtOnce)', () => {
  it('opens at most that many at once; the next begins when one is open or failed', async () => {
    const dispatcher = createDispatcher({
      connectTo: [parseConnectTo(`::127.0.0.1:${port}`)],
      ca: [],
      insecure: true,
      refusePrivate: false,
      connectTimeoutMs: 30_000,
      connectionsPerOrigin: 1,
      keepAliveTimeoutMs: 1_000,
      connectsAtOnce: 2,
    });
    const abort = new AbortController();
    const requests = Array.from({ length: 5 }, (_, i) =>
      dispatcher
        .request({ origin: `https://site${i}.test`, path: '/', method: 'GET', signal: abort.signal })
        .then(
          () => 'answered',
          () => 'failed',
        ),
    );
    try {
      await until(() => sockets.length === 2, 'two connections');
      // The others wait their turn: no third connection while both handshakes hang.
      await new Promise((r) => setTimeout(r, 300));
      expect(sockets.length).toBe(2);
      // A handshake that fails frees its turn.
      sockets[0]!.destroy();
      await until(() => sockets.length === 3, 'a third connection');
      sockets[1]!.destroy();
      sockets[2]!.destroy();
      await until(() => sockets.length === 5, 'the last two connections');
    } finally {
      abort.abort();
      for (const socket of sockets) socket.destroy();
      await dispatcher.destroy();
    }
    expect(await Promise.all(requests)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
  });
});
