/**
 * Cluster mode when Redis is away: a redis-server of the test's own, on a
 * port of its own, that is missing at first, then started, then killed. The
 * API answers 503 store_unavailable with Retry-After at once (never a hang,
 * never a 500), /readyz says not ready, and searches run once Redis is back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, pollUntilDone, postSearch, type RunningService, startService } from '../support/service.js';
import { waitFor } from './processes.js';
import { uniquePrefix } from './redis-support.js';

const catalogue = catalogueOf(Array.from({ length: 8 }, (_, i) => entry(`Outage ${i}`)));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => (catalogue.platforms.indexOf(p) % 2 === 0 ? ['alice'] : []),
});
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth });

let port: number;
let redisServer: ChildProcess | undefined;
let running: RunningService | undefined;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return p;
}

function startRedisServer(): ChildProcess {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  child.on('error', () => {}); // no redis-server binary: the readiness wait below fails with a message
  return child;
}

async function stopRedisServer(): Promise<void> {
  const child = redisServer;
  redisServer = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5_000))]);
}

/** A request that must answer within `limitMs`; a hang fails the test instead of stalling it. */
async function timed(url: string, init: RequestInit = {}, limitMs = 5_000) {
  const started = Date.now();
  const r = await json(url, { ...init, signal: AbortSignal.timeout(limitMs) });
  return { ...r, ms: Date.now() - started };
}

function expectStoreUnavailable(r: { status: number; headers: Headers; body: unknown; ms: number }) {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body).toMatchObject({ code: 'store_unavailable', retryAfter: 5 });
  expect(typeof (r.body as { requestId?: unknown }).requestId).toBe('string');
  expect(r.headers.get('retry-after')).toBe('5');
  expect(r.ms).toBeLessThan(4_000);
}

beforeAll(async () => {
  await sim.start();
  port = await freePort();
  // Nothing listens on the port yet: the service must start anyway.
  running = await startService(sim, catalogue, {
    redisUrl: `redis://127.0.0.1:${port}`,
    redisPrefix: uniquePrefix('outage'),
    role: 'all',
    jobLockMs: 3_000,
  });
}, 30_000);

afterAll(async () => {
  await running?.service.close();
  await stopRedisServer();
  await sim.stop();
}, 30_000);

describe('cluster mode without Redis', () => {
  it('answers 503 store_unavailable with Retry-After while Redis is missing', async () => {
    const url = running!.url;
    expectStoreUnavailable(
      await timed(`${url}/api/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice' }),
      }),
    );
    expectStoreUnavailable(await timed(`${url}/api/search?id=00000000-0000-4000-8000-000000000000`));
    expectStoreUnavailable(await timed(`${url}/api/search`, { headers: { 'x-api-key': 'usk_some-key' } }));
    // Health says the process lives; readiness says it cannot serve.
    expect((await timed(`${url}/healthz`)).status).toBe(200);
    const ready = await timed(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not ready', store: false });
  });

  it('serves and runs searches once Redis is up, and answers 503 again when it goes away', async () => {
    const url = running!.url;
    redisServer = startRedisServer();
    await waitFor(
      'the service to be ready with Redis up',
      async () => ((await timed(`${url}/readyz`)).status === 200 ? true : undefined),
      20_000,
      200,
    );
    const started = await postSearch(url, { username: 'alice' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await pollUntilDone(url, started.body.queryId, '&include=all', 100, 30_000);
    expect(done.body.status).toBe('completed');
    const truth = emulation.truth();
    const results = done.body.results as { platform: string; status: string }[];
    expect(results).toHaveLength(catalogue.platforms.length);
    for (const o of results) expect(o.status).toBe(truth[o.platform]!.includes('alice') ? 'hit' : 'miss');

    await stopRedisServer();
    await waitFor(
      'the service to notice Redis is gone',
      async () => ((await timed(`${url}/readyz`)).status === 503 ? true : undefined),
      10_000,
      100,
    );
    expectStoreUnavailable(
      await timed(`${url}/api/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bob' }),
      }),
    );
    expectStoreUnavailable(await timed(`${url}/api/search?id=${started.body.queryId}`));
  }, 60_000);
});
