import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { IDLE_GRACE_MS } from '../../src/tuning.js';
import { catalogueOf, entry } from '../support/catalogue.js';

/** A plain HTTP site for every host: 200 for alice, 404 otherwise; it counts connections. */
let server: Server;
let port: number;
const open = new Set<Socket>();
let connections = 0;
let requests = 0;

beforeAll(async () => {
  // A minute's keep-alive, as large sites keep idle connections; slow.test answers after 50 ms.
  server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    requests++;
    const found = (req.url ?? '').endsWith('/alice');
    const answer = () =>
      res.writeHead(found ? 200 : 404, { 'content-type': 'text/html' }).end(found ? 'profile' : 'none');
    if (req.headers.host?.startsWith('slow.test')) setTimeout(answer, 50);
    else answer();
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

let engine: Engine | undefined;

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  // Bounded: the engine closed its connections; the server sees them go.
  for (let i = 0; i < 100 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
  connections = 0;
  requests = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

function http(name: string, host: string, path = name.toLowerCase()) {
  return entry(name, { home: `http://${host}/`, profile: `http://${host}/${path}/{username}` });
}

function engineOf(keepIdleConnections: boolean, platforms: ReturnType<typeof http>[]): Engine {
  const config = loadConfig(
    {
      connectTo: [`::127.0.0.1:${port}`],
      refusePrivate: false,
      keepIdleConnections,
      budgetPerSecond: 1000,
      budgetBurst: 100,
      // Counted here: one connection per check, so no control check after a hit.
      controlWindowMs: 0,
    },
    {},
    'cli',
  );
  return createEngine(config, catalogueOf(platforms, false));
}

async function search(e: Engine, username: string): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for await (const outcome of e.search(username, e.catalogue.platforms)) out.push(outcome);
  return out;
}

async function settled(): Promise<void> {
  // Closing is the client's half: give the server's side a moment (bounded) to see it.
  for (let i = 0; i < 100 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
}

describe('idle connections', () => {
  it('the command line default closes a connection no other check needs', () => {
    expect(loadConfig({}, {}, 'cli').keepIdleConnections).toBe(false);
    expect(loadConfig({}, {}).keepIdleConnections).toBe(true);
  });

  it('closes each origin’s connection after its last check, with the same outcomes', async () => {
    const platforms = [http('One', 'one.test'), http('Two', 'two.test'), http('Three', 'three.test')];
    engine = engineOf(false, platforms);
    const closed = await search(engine, 'alice');
    await settled();
    expect(open.size).toBe(0);
    expect(connections).toBe(3);
    await engine.close();

    engine = engineOf(true, platforms);
    const kept = await search(engine, 'alice');
    // Kept alive: the three connections stay open until the engine closes.
    expect(open.size).toBe(3);
    const statuses = (outcomes: Outcome[]) => outcomes.map((o) => `${o.platform}:${o.status}`).sort();
    expect(statuses(closed)).toEqual(statuses(kept));
    expect(statuses(closed)).toEqual(['One:hit', 'Three:hit', 'Two:hit']);
  });

  it('closes once: a second close waits for the first and does not throw', async () => {
    engine = engineOf(true, [http('One', 'one.test')]);
    expect((await search(engine, 'alice')).map((o) => o.status)).toEqual(['hit']);
    expect(open.size).toBe(1);
    const first = engine.close();
    const second = engine.close();
    expect(second).toBe(first);
    await second;
    await settled();
    expect(open.size).toBe(0);
    await expect(engine.close()).resolves.toBeUndefined();
  });

  it('keeps a connection for the next check to its origin', async () => {
    // Six platforms on one origin, at most two checks in flight to it: connections are reused.
    const platforms = ['A', 'B', 'C', 'D', 'E', 'F'].map((n) => http(n, 'shared.test'));
    const config = loadConfig(
      {
        connectTo: [`::127.0.0.1:${port}`],
        refusePrivate: false,
        keepIdleConnections: false,
        perHost: 2,
        budgetPerSecond: 1000,
        budgetBurst: 100,
        controlWindowMs: 0,
      },
      {},
      'cli',
    );
    engine = createEngine(config, catalogueOf(platforms, false));
    const outcomes = await search(engine, 'nobody');
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('miss'));
    await settled();
    expect(requests).toBe(6);
    expect(connections).toBeLessThan(6);
    // A check decides before it is sent; the last ones in flight together each saw the
    // other, so at most that many (perHost) stay open.
    expect(open.size).toBeLessThanOrEqual(2);
  });

  it('the service keeps one idle connection per origin; those opened for checks in flight together close', async () => {
    // Six platforms on one slow origin, four checks in flight to it at once: four connections.
    const platforms = ['A', 'B', 'C', 'D', 'E', 'F'].map((n) => http(n, 'slow.test'));
    const config = loadConfig(
      {
        connectTo: [`::127.0.0.1:${port}`],
        refusePrivate: false,
        perHost: 4,
        budgetPerSecond: 1000,
        budgetBurst: 100,
        controlWindowMs: 0,
      },
      {},
    );
    expect(config.keepIdleConnections).toBe(true);
    expect(config.idleConnectionsPerOrigin).toBe(1);
    engine = createEngine(config, catalogueOf(platforms, false));
    const outcomes = await search(engine, 'alice');
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('hit'));
    expect(connections).toBeGreaterThan(1);
    // Bounded: the extra ones close IDLE_GRACE_MS after their answer, the kept one a minute after.
    const until = Date.now() + IDLE_GRACE_MS + 10_000;
    while (Date.now() < until && open.size > 1) await new Promise((r) => setTimeout(r, 20));
    expect(open.size).toBe(1);
  });

  it('closes a kept connection after keepAliveMaxMs, though the site would keep it a minute', async () => {
    const platforms = [http('One', 'one.test')];
    const config = (keepAliveMaxMs?: number) =>
      loadConfig(
        {
          connectTo: [`::127.0.0.1:${port}`],
          refusePrivate: false,
          controlWindowMs: 0,
          ...(keepAliveMaxMs ? { keepAliveMaxMs } : {}),
        },
        {},
      );
    expect(config().keepAliveMaxMs).toBe(600_000);
    engine = createEngine(config(100), catalogueOf(platforms, false));
    expect((await search(engine, 'alice')).map((o) => o.status)).toEqual(['hit']);
    expect(connections).toBe(1);
    // Bounded: 100 ms, against the site's minute.
    for (let i = 0; i < 250 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(open.size).toBe(0);
  });
});
