import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leanPools } from './lean-pool.js';

/** A site that keeps idle connections a minute (as large sites do) and answers after 30 ms. */
async function slowSite(): Promise<{ base: string; open: Set<Socket>; server: Server }> {
  const open = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    setTimeout(() => res.end(req.url), 30);
  });
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open, server };
}

/** Waits (bounded) until `done()` holds; the grace is 20 ms, the bound far longer, so no timing is asserted. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await sleep(20);
}

describe('idle connections capped per origin', () => {
  let site: Awaited<ReturnType<typeof slowSite>>;
  let agent: Agent;
  beforeEach(async () => {
    site = await slowSite();
    agent = new Agent({ connections: 4, factory: leanPools({ kept: 1, graceMs: 20 }) });
  });
  afterEach(async () => {
    await agent.close();
    site.server.closeAllConnections();
    site.server.close();
  });

  const burst = (n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const res = await request(`${site.base}/${i}`, { dispatcher: agent });
        return res.body.text();
      }),
    );

  it('keeps one connection of a burst open, and closes the others once idle', async () => {
    expect(await burst(4)).toEqual(['/0', '/1', '/2', '/3']);
    expect(site.open.size).toBeGreaterThan(1);
    await until(() => site.open.size <= 1);
    expect(site.open.size).toBe(1);
  });

  it('opens the closed ones again for the next burst, and reuses the kept one', async () => {
    await burst(4);
    await until(() => site.open.size <= 1);
    const [kept] = site.open;
    expect(await burst(4)).toEqual(['/0', '/1', '/2', '/3']);
    expect(site.open.has(kept!)).toBe(true);
    await until(() => site.open.size <= 1);
    expect([...site.open]).toEqual([kept]);
  });
});
