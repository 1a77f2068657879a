/**
 * Webhook receivers are hostile: one answers with a gzip bomb (a 1 GiB body of
 * zeros, about 1 MB on the wire), one with a body that trickles forever, one
 * with an endless flood. Each attempt is logged with its status, reads a few KB
 * of the answer at most (counted on the client's sockets, which is what the
 * sender reads off the wire) and ends within its timeout; and while one key's
 * receiver holds every attempt it gets, other keys' deliveries go on.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord, Watchlist } from '../../src/store/watchlists.js';
import { WatchlistScheduler } from '../../src/watchlists/scheduler.js';
import { ANSWER_READ_MAX_BYTES, sendWebhook } from '../../src/watchlists/send-webhook.js';
import { MemoryStore } from '../support/memory-store.js';
import { eventually } from './support.js';

/** One gzip member of 1 MiB of zeros; members back to back are one valid gzip stream. */
const MEMBER = gzipSync(Buffer.alloc(1 << 20));
/** 1 GiB once decompressed. */
const BOMB_MEMBERS = 1024;
const BOMB_WIRE_BYTES = MEMBER.length * BOMB_MEMBERS;
/** Most bytes a flood sends before it stops on its own: every loop in a test is bounded. */
const FLOOD_MAX_BYTES = 256 << 20;
/** What the sender may read off the wire: its few KB, plus what the socket had buffered when it stopped. */
const READ_BOUND = 256 * 1024;

/** Writes `next()` chunks with backpressure until it gives none or the client goes away. */
function pump(response: ServerResponse, next: () => Buffer | undefined): void {
  const go = () => {
    for (;;) {
      if (response.destroyed) return;
      const chunk = next();
      if (!chunk) return void response.end();
      if (!response.write(chunk)) return void response.once('drain', go);
    }
  };
  go();
}

const trickles = new Set<NodeJS.Timeout>();

function answer(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://receiver');
  const status = Number(url.searchParams.get('status') ?? 200);
  if (url.pathname === '/bomb') {
    response.writeHead(status, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    let sent = 0;
    pump(response, () => (sent++ < BOMB_MEMBERS ? MEMBER : undefined));
    return;
  }
  if (url.pathname === '/flood') {
    response.writeHead(status, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'A');
    let sent = 0;
    pump(response, () => {
      sent += chunk.length;
      return sent <= FLOOD_MAX_BYTES ? chunk : undefined;
    });
    return;
  }
  if (url.pathname === '/trickle') {
    response.writeHead(status, { 'content-type': 'text/plain' });
    const timer = setInterval(() => response.write('x'), 50);
    trickles.add(timer);
    response.on('close', () => {
      clearInterval(timer);
      trickles.delete(timer);
    });
    return;
  }
  response.writeHead(status).end('ok');
}

let server: Server;
let base = '';
const received: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(request.url ?? '');
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The client sockets opened while `work` runs, and the bytes they read once closed. */
async function reading<T>(work: () => Promise<T>): Promise<{ result: T; bytesRead: number }> {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
  subscribe('net.client.socket', onSocket);
  try {
    const result = await work();
    // A socket of a cut-off answer is closed by the sender; counted once it is (or after 5 s).
    for (let i = 0; i < 100 && !sockets.every((s) => s.destroyed); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return { result, bytesRead: sockets.reduce((n, s) => n + s.bytesRead, 0) };
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
}

const delivery = (url: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id: 'd1',
  watchlistId: 'w1',
  eventId: 'evt_1',
  eventType: 'watchlist.changes',
  body: '{"id":"evt_1","changes":[]}',
  url,
  state: 'pending',
  createdAt: Date.now(),
  attempts: [],
  nextAttemptAt: Date.now(),
  ...overrides,
});

const options = { secret: 'whsec_hostile', timeoutMs: 10_000, allowPrivate: true, now: Date.now };

describe('a webhook attempt against a hostile receiver', () => {
  it('logs the status of a gzip bomb without decompressing it or reading more than a few KB', async () => {
    expect(BOMB_WIRE_BYTES).toBeGreaterThan(4 * READ_BOUND);
    for (const status of [500, 200]) {
      const { result, bytesRead } = await reading(() =>
        sendWebhook(delivery(`${base}/bomb?status=${status}`), options),
      );
      expect(result.status).toBe(status);
      // A compressed answer gives no reason: its bytes are not text.
      if (status === 500) expect(result.error).toBe('HTTP 500');
      else expect(result.error).toBeUndefined();
      expect(bytesRead).toBeLessThan(READ_BOUND);
    }
  });

  it('keeps a short, printable reason of an endless flood and reads a few KB of it', async () => {
    const { result, bytesRead } = await reading(() =>
      sendWebhook(delivery(`${base}/flood?status=500`), options),
    );
    expect(result.status).toBe(500);
    expect(result.error).toBe(`HTTP 500: ${'A'.repeat(200)}`);
    expect(bytesRead).toBeLessThan(READ_BOUND);
    expect(ANSWER_READ_MAX_BYTES).toBeLessThanOrEqual(16 * 1024);
  });

  it('does not wait for a body that trickles forever: a 2xx ends at once, another status by its timeout', async () => {
    const ok = await sendWebhook(delivery(`${base}/trickle?status=200`), options);
    expect(ok).toMatchObject({ status: 200 });
    expect(ok.error).toBeUndefined();
    // Its status is all that counts: far less than the 10 s the attempt may take.
    expect(ok.durationMs).toBeLessThan(5_000);

    const failed = await sendWebhook(delivery(`${base}/trickle?status=503`), { ...options, timeoutMs: 500 });
    expect(failed.status).toBe(503);
    expect(failed.error).toMatch(/^HTTP 503(: x+)?$/);
    expect(failed.durationMs).toBeLessThan(500 + 4_000);
  });
});

describe('deliveries of several keys', () => {
  let scheduler: WatchlistScheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
  });

  const watchlist = (id: string, owner: string): Watchlist => ({
    id,
    owner,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    spec: {
      names: ['alice'],
      intervalMs: 3_600_000,
      webhookSecret: 'whsec_0123456789abcdef',
      notify: 'changes',
    },
    // Not due in this test: only its deliveries are.
    state: { nextRunAt: Date.now() + 86_400_000, runs: 0, baseline: {} },
  });

  it("go on while one key's receiver holds every attempt it gets", { timeout: 30_000 }, async () => {
    const store = new MemoryStore();
    const w = store.watchlists;
    await w.createWatchlist(watchlist('tarpit', 'key:tarpit'));
    await w.createWatchlist(watchlist('bomb', 'key:bomb'));
    await w.createWatchlist(watchlist('fine', 'key:fine'));
    const t = Date.now() - 60_000;
    // The tarpit key's deliveries are due first, more of them than the scheduler sends at once.
    for (let i = 0; i < 6; i++)
      await w.createDelivery(
        delivery(`${base}/trickle?status=503`, { id: `t${i}`, watchlistId: 'tarpit', nextAttemptAt: t + i }),
      );
    await w.createDelivery(
      delivery(`${base}/bomb?status=500`, { id: 'b1', watchlistId: 'bomb', nextAttemptAt: t + 100 }),
    );
    await w.createDelivery(delivery(`${base}/ok`, { id: 'f1', watchlistId: 'fine', nextAttemptAt: t + 101 }));
    const errors: unknown[] = [];
    scheduler = new WatchlistScheduler({
      store,
      startSearch: async () => ({ skipped: 'not in this test' }),
      now: Date.now,
      tickMs: 20,
      leaseMs: 60_000,
      maxRunMs: 600_000,
      retry: { baseMs: 60_000, maxMs: 60_000, retryForMs: 3_600_000 },
      // Longer than the test: the tarpit holds its attempts all along.
      webhookTimeoutMs: 60_000,
      allowPrivate: true,
      maxDeliveries: 4,
      maxDeliveriesPerKey: 2,
      keptDeliveries: { perKey: 100, retentionMs: 3_600_000 },
      onError: (error) => errors.push(error),
    });
    scheduler.start();
    const fine = await eventually('the other key delivered', async () => {
      const d = await w.getDelivery('f1');
      return d?.state === 'delivered' ? d : undefined;
    });
    expect(fine.attempts.map((a) => a.status)).toEqual([200]);
    const bombed = await eventually('the bomb logged', async () => {
      const d = await w.getDelivery('b1');
      return d?.attempts[0]?.status !== undefined ? d : undefined;
    });
    expect(bombed.attempts).toMatchObject([{ status: 500, error: 'HTTP 500' }]);
    expect(bombed.state).toBe('pending');
    // The tarpit's attempts are still under way, recorded as such, two at most.
    const tarpit = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => w.getDelivery(`t${i}`)));
    const inFlight = tarpit.filter((d) => d?.attempts.at(-1)?.phase === 'in_flight');
    expect(inFlight).toHaveLength(2);
    expect(tarpit.every((d) => d?.state === 'pending')).toBe(true);
    expect(errors).toEqual([]);
  });
});
