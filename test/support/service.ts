import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Catalogue } from '../../src/catalogue/platform.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/service.js';
import type { SimWeb } from '../../src/sim/server.js';
import { inMemoryOrigin, send } from './in-memory-api.js';

export interface RunningService {
  readonly service: Service;
  readonly url: string;
  readonly config: Config;
}

export function tempDir(prefix = 'userscout-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The USERSCOUT_METRICS_TOKEN of `startService`'s services. */
export const TEST_METRICS_TOKEN = 'test-metrics-token';

/** The Prometheus text a service serves, asked with the test token. */
export function metricsText(url: string): Promise<string> {
  return send(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } }).then((r) =>
    r.text(),
  );
}

/** The real service over HTTP on 127.0.0.1, checking platforms on the simulated web. */
export async function startService(
  sim: SimWeb,
  catalogue: Catalogue,
  overrides: Parameters<typeof loadConfig>[0] = {},
): Promise<RunningService> {
  const config = testConfig(sim, overrides);
  const service = await createService(config, { catalogue });
  const url = await service.listen();
  return { service, url, config };
}

/**
 * The same service started without listening: its `url` is answered in memory through
 * `app.inject` (test/support/in-memory-api.ts) by these helpers and `send`. Its checks still
 * go to the simulated web; only the test's own hop to the API has no socket.
 */
export async function injectService(
  sim: SimWeb,
  catalogue: Catalogue,
  overrides: Parameters<typeof loadConfig>[0] = {},
): Promise<RunningService> {
  const config = testConfig(sim, overrides);
  const service = await createService(config, { catalogue });
  await service.start();
  return { service, url: inMemoryOrigin(service.app), config };
}

/** The settings of a test's service: every connection to the simulated web, trusting its CA. */
export function testConfig(sim: SimWeb, overrides: Parameters<typeof loadConfig>[0] = {}): Config {
  const dataDir = (overrides.dataDir as string | undefined) ?? tempDir();
  const caFile = join(dataDir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  return loadConfig(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      connectTo: sim.connectTo,
      caFile,
      refusePrivate: false,
      timeoutMs: 3000,
      retryBaseMs: 20,
      retryMaxMs: 200,
      // Off unless a test is about it: a self-check due at a random moment would change what a test sees.
      selfCheckIntervalMs: 0,
      metricsToken: TEST_METRICS_TOKEN,
      // Searches on the API thread unless a test asks for the search thread: each thread loads
      // the engine again (through tsx when the build is stale, over a CPU-second). The thread is
      // proved by its own tests, the contract's start-to-finish searches and every spawned process.
      searchThread: false,
      ...overrides,
    },
    {},
  );
}

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the API answered and assert on it.
type JsonBody = any;

export async function json(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: JsonBody }> {
  const response = await send(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

export function postSearch(url: string, body: unknown, headers: Record<string, string> = {}) {
  return json(`${url}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Polls once every `everyMs` until the search is finished; bounded by `limitMs`. */
export async function pollUntilDone(
  url: string,
  id: string,
  query = '',
  everyMs = 100,
  limitMs = 30_000,
  headers: Record<string, string> = {},
) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await json(`${url}/api/search?id=${id}${query}`, { headers });
    if (r.status !== 200) throw new Error(`poll answered ${r.status}: ${JSON.stringify(r.body)}`);
    if (r.body.status !== 'running') return r;
    if (Date.now() > deadline) throw new Error(`search ${id} still running after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Reads a Server-Sent Events stream until its done event, for at most `limitMs`. */
export async function readEvents(
  url: string,
  limitMs: number,
  headers: Record<string, string> = {},
): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limitMs);
  try {
    const response = await send(url, { headers, signal: controller.signal });
    if (response.status !== 200) throw new Error(`events answered ${response.status}`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
      if (/event: done\ndata: .*\n/.test(text)) return text;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** A request that must answer within `limitMs`, with how long it took; a hang fails the test instead of stalling it. */
export async function timed(url: string, init: RequestInit = {}, limitMs = 10_000) {
  const started = Date.now();
  const r = await json(url, { ...init, signal: AbortSignal.timeout(limitMs) });
  return { ...r, ms: Date.now() - started };
}

/**
 * A store outage's answer: 503 store_unavailable with Retry-After, an answer rather than a wait
 * for Redis (BullMQ would wait for its reconnect without end): within the store's 3 s deadline,
 * with room for a loaded machine.
 */
export function expectStoreUnavailable(r: {
  status: number;
  headers: Headers;
  body: unknown;
  ms: number;
}): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body).toMatchObject({ code: 'store_unavailable', retryAfter: 5 });
  expect(typeof (r.body as { requestId?: unknown }).requestId).toBe('string');
  expect(r.headers.get('retry-after')).toBe('5');
  expect(r.ms).toBeLessThan(8_000);
}

/**
 * What a service answers while its store is away: a start, a poll and a key's listing are 503
 * store_unavailable; health says the process lives and readiness that it cannot serve (its answer returned).
 */
export async function expectStoreOutage(url: string, username: string) {
  expectStoreUnavailable(
    await timed(`${url}/api/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username }),
    }),
  );
  expectStoreUnavailable(await timed(`${url}/api/search?id=00000000-0000-4000-8000-000000000000`));
  expectStoreUnavailable(await timed(`${url}/api/search`, { headers: { 'x-api-key': 'usk_some-key' } }));
  expect((await timed(`${url}/healthz`)).status).toBe(200);
  const ready = await timed(`${url}/readyz`);
  expect(ready.status).toBe(503);
  return ready;
}

/**
 * One service for the enclosing block (or file), started before its tests and closed after them;
 * `start` is `startService` (listening) or `injectService` (in memory).
 */
export function serviceForBlock(
  sim: SimWeb,
  catalogue: Catalogue,
  overrides: Parameters<typeof loadConfig>[0] = {},
  start: typeof startService = startService,
): () => RunningService {
  let running: RunningService | undefined;
  beforeAll(async () => {
    running = await start(sim, catalogue, overrides);
  });
  afterAll(async () => {
    await running?.service.close();
  });
  return () => {
    if (!running) throw new Error('the block’s service has not started');
    return running;
  };
}
