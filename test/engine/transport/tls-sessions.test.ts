import diagnostics from 'node:diagnostics_channel';
import type { TLSSocket } from 'node:tls';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectTo } from '../../../src/engine/transport/connect-to.js';
import { createDispatcher } from '../../../src/engine/transport/dispatcher.js';
import { exchange } from '../../../src/engine/transport/http.js';
import { TlsSessionKeeper } from '../../../src/engine/transport/tls-sessions.js';
import { SimWeb } from '../../../src/sim/server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('TlsSessionKeeper', () => {
  it('keeps the latest session per server name, at most max, the least recently renewed or read let go first', () => {
    const keeper = new TlsSessionKeeper(2);
    const [a1, a2, b, c] = ['a1', 'a2', 'b', 'c'].map((s) => Buffer.from(s));
    keeper.keep('a.test', a1!);
    keeper.keep('b.test', b!);
    keeper.keep('a.test', a2!);
    expect(keeper.get('a.test')).toBe(a2);
    keeper.keep('c.test', c!);
    expect(keeper.size).toBe(2);
    expect(keeper.get('b.test')).toBeUndefined();
    expect(keeper.get('a.test')).toBe(a2);
    expect(keeper.get('c.test')).toBe(c);
    // Read last: a.test goes before c.test.
    keeper.keep('d.test', Buffer.from('d'));
    expect(keeper.get('a.test')).toBeUndefined();
    expect(keeper.get('c.test')).toBe(c);
  });
});

describe('TLS session resumption', () => {
  const sim = new SimWeb();
  let dispatcher: Dispatcher;
  const reused: boolean[] = [];
  const onConnected = (message: unknown) => {
    const { socket } = message as { socket: TLSSocket };
    reused.push(socket.isSessionReused());
  };

  beforeAll(async () => {
    sim.addRoute({ host: /.*/, handle: () => ({ kind: 'respond', status: 200, body: 'hello' }) });
    await sim.start();
    dispatcher = createDispatcher({
      connectTo: sim.connectTo.map(parseConnectTo),
      ca: [sim.caCert],
      insecure: false,
      refusePrivate: false,
      connectTimeoutMs: 5000,
      connectionsPerOrigin: 1,
      keepAliveTimeoutMs: 10_000,
    });
    diagnostics.subscribe('undici:client:connected', onConnected);
  });
  afterAll(async () => {
    diagnostics.unsubscribe('undici:client:connected', onConnected);
    await dispatcher.close();
    await sim.stop();
  });

  const get = () =>
    exchange(
      {
        username: 'alice',
        url: 'https://resume.test/u/alice',
        origin: 'https://resume.test',
        method: 'GET',
        headers: {},
        body: undefined,
        redirects: 'manual',
      },
      {
        dispatcher,
        signal: AbortSignal.timeout(5000),
        bodyCapBytes: 1 << 20,
        maxRedirects: 0,
        // A new connection for each request, so each one makes a handshake.
        closeConnection: true,
        decide: () => undefined,
      },
    );

  it('resumes the session of an earlier connection to the origin, even after a garbage collection', async () => {
    expect((await get()).view.body).toBe('hello');
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await get()).view.body).toBe('hello');
    }
    expect(reused[0]).toBe(false);
    // undici alone holds its sessions weakly: once collected, every handshake was a full one.
    expect(reused.slice(1)).toEqual([true, true, true, true, true]);
  });
});
