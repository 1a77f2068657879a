import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, Pool, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ArrayQueue, leanPools, leanQueueSupported } from './lean-pool.js';

describe('ArrayQueue', () => {
  it('is first in, first out, and empty again once drained', () => {
    const q = new ArrayQueue<number>();
    expect(q.isEmpty()).toBe(true);
    expect(q.shift()).toBeNull();
    q.push(1);
    q.push(2);
    expect(q.shift()).toBe(1);
    q.push(3);
    expect([q.shift(), q.shift(), q.shift()]).toEqual([2, 3, null]);
    expect(q.isEmpty()).toBe(true);
  });
});

describe('leanPools', () => {
  it("finds undici's pool queue to swap (fails after an undici upgrade that renamed it)", () => {
    expect(leanQueueSupported()).toBe(true);
    const pool = leanPools()('http://example.test', { connections: 2 });
    expect(pool).toBeInstanceOf(Pool);
    const queues = Object.getOwnPropertySymbols(pool)
      .filter((s) => s.description === 'queue')
      .map((s) => (pool as unknown as Record<symbol, unknown>)[s]);
    expect(queues.some((q) => q instanceof ArrayQueue)).toBe(true);
    void pool.close();
  });

  it('serves more requests at once than connections, queued in order, through an Agent', async () => {
    let inFlight = 0;
    let most = 0;
    const server = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end(req.url);
      }, 20);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new Agent({ connections: 2, factory: leanPools() });
    try {
      const bodies = await Promise.all(
        Array.from({ length: 7 }, async (_, i) => {
          const res = await request(`${base}/${i}`, { dispatcher: agent });
          return res.body.text();
        }),
      );
      expect(bodies).toEqual(Array.from({ length: 7 }, (_, i) => `/${i}`));
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
