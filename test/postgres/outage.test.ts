/**
 * The service with PostgreSQL as its store of record, when PostgreSQL goes
 * away: reached through a TCP proxy that the test stops and starts again. The
 * API answers 503 store_unavailable with Retry-After at once (never a hang,
 * never a 500), /readyz says not ready, and it serves again once PostgreSQL is
 * back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { waitFor } from '../cluster/processes.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import {
  expectStoreOutage,
  pollUntilDone,
  postSearch,
  type RunningService,
  startService,
  timed,
} from '../support/service.js';
import { createTestDatabase } from './postgres-support.js';
import { TcpProxy } from './tcp-proxy.js';

const catalogue = catalogueOf(Array.from({ length: 8 }, (_, i) => entry(`Pg outage ${i}`)));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => (catalogue.platforms.indexOf(p) % 2 === 0 ? ['alice'] : []),
});
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth });
const proxy = new TcpProxy({ host: '127.0.0.1', port: 5432 });
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let running: RunningService | undefined;

beforeAll(async () => {
  database = await createTestDatabase('outage');
  await sim.start();
  await proxy.start();
  const url = new URL(database.url);
  url.port = String(proxy.port);
  running = await startService(sim, catalogue, { databaseUrl: url.href });
}, 30_000);

afterAll(async () => {
  await running?.service.close();
  await proxy.stop();
  await sim.stop();
  await database?.drop();
}, 30_000);

describe('PostgreSQL as the store of record, going away and coming back', () => {
  it('runs a search while PostgreSQL is there', async () => {
    const url = running!.url;
    const started = await postSearch(url, { username: 'alice' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await pollUntilDone(url, started.body.queryId, '&include=all', 100, 30_000);
    expect(done.body.status, JSON.stringify(done.body.error)).toBe('completed');
    const results = done.body.results as { platform: string; status: string }[];
    expect(results).toHaveLength(catalogue.platforms.length);
    const truth = emulation.truth();
    for (const o of results) expect(o.status).toBe(truth[o.platform]!.includes('alice') ? 'hit' : 'miss');
  });

  it('answers 503 store_unavailable with Retry-After while PostgreSQL is away, and serves again after', async () => {
    const url = running!.url;
    await proxy.stop();
    await expectStoreOutage(url, 'bob');

    await proxy.start();
    await waitFor(
      'the service to be ready with PostgreSQL back',
      async () => ((await timed(`${url}/readyz`)).status === 200 ? true : undefined),
      20_000,
      200,
    );
    const started = await postSearch(url, { username: 'alice' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await pollUntilDone(url, started.body.queryId, '', 100, 30_000);
    expect(done.body.status).toBe('completed');
  }, 60_000);
});
