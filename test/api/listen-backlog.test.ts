/**
 * A burst of new connections against the real service: none is dropped to a SYN retry.
 * The kernel counts drops for the whole network namespace, so this file runs after the
 * others, by itself (vitest.config.ts), where no other test's servers add to the count.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { type RunningService, startService } from '../support/service.js';

const sim = new SimWeb({ routes: [] });
let running: RunningService | undefined;

beforeAll(async () => {
  await sim.start();
  running = await startService(sim, catalogueOf([entry('Plain')]));
});
afterAll(async () => {
  await running?.service.close();
  await sim.stop();
});

/**
 * The kernel's count of connections a listening socket's full queue dropped (TcpExt
 * ListenOverflows + ListenDrops in /proc/net/netstat, for this network namespace), or
 * undefined where the kernel does not publish it.
 */
function listenDrops(): number | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/net/netstat', 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n').filter((line) => line.startsWith('TcpExt:'));
  if (lines.length < 2) return undefined;
  const names = lines[0]!.split(/\s+/);
  const values = lines[1]!.split(/\s+/);
  const read = (name: string) => Number(values[names.indexOf(name)]);
  const drops = read('ListenOverflows') + read('ListenDrops');
  return Number.isFinite(drops) ? drops : undefined;
}

describe('a burst of new connections', () => {
  it('queues 800 connections opened at once without dropping any to a SYN retry', async () => {
    // Node's own default queue is 511: past it the kernel drops the SYNs, and those clients
    // connect only on their retry a second later. The kernel counts
    // each drop, so the test reads its counter rather than the clock: a loaded machine delays
    // every connection, but drops none.
    const { url, config } = running!;
    expect(config.listenBacklog).toBe(4096);
    const port = Number(new URL(url).port);
    const dropsBefore = listenDrops();
    const opened = performance.now();
    const sockets = Array.from({ length: 800 }, () => connect({ host: '127.0.0.1', port }));
    try {
      const connectedAfterMs = await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<number>((resolve, reject) => {
              socket.once('connect', () => resolve(performance.now() - opened));
              socket.once('error', reject);
            }),
        ),
      );
      expect(connectedAfterMs).toHaveLength(800);
      const dropsAfter = listenDrops();
      if (dropsBefore !== undefined && dropsAfter !== undefined) {
        expect(dropsAfter - dropsBefore).toBe(0);
      } else {
        // Without the kernel's counter: a dropped SYN is sent again about a second later,
        // a second wave of connections after a gap.
        const sorted = connectedAfterMs.sort((a, b) => a - b);
        const longestGapMs = Math.max(...sorted.slice(1).map((ms, i) => ms - sorted[i]!));
        expect(longestGapMs).toBeLessThan(900);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
