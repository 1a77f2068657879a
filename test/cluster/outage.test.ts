/**
 * Cluster mode when Redis is away: a redis-server of the test's own, on a
 * port of its own, that is missing at first, then started, then killed. The
 * API answers 503 store_unavailable with Retry-After at once (never a hang,
 * never a 500), /readyz says not ready, and searches run once Redis is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import {
  expectStoreOutage,
  expectStoreUnavailable,
  pollUntilDone,
  postSearch,
  type RunningService,
  startService,
  timed,
} from '../support/service.js';
import { waitFor } from './processes.js';
import { type OwnRedis, ownRedis, uniquePrefix } from './redis-support.js';

const catalogue = catalogueOf(Array.from({ length: 8 }, (_, i) => entry(`Outage ${i}`)));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => (catalogue.platforms.indexOf(p) % 2 === 0 ? ['alice'] : []),
});
const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth });

let redis: OwnRedis;
let running: RunningService | undefined;

beforeAll(async () => {
  await sim.start();
  redis = await ownRedis();
  // Nothing listens on the port yet: the service must start anyway.
  running = await startService(sim, catalogue, {
    redisUrl: redis.url,
    redisPrefix: uniquePrefix('outage'),
    role: 'all',
    jobLockMs: 3_000,
    // What a search answers once Redis is back is tested here, not how fast: a check on a
    // loaded machine (the suite's other files) may take longer than the support's 3 s.
    timeoutMs: 10_000,
  });
}, 30_000);

afterAll(async () => {
  await running?.service.close();
  await redis?.stop();
  await sim.stop();
}, 30_000);

describe('cluster mode without Redis', () => {
  it('answers 503 store_unavailable with Retry-After while Redis is missing', async () => {
    const url = running!.url;
    // Health says the process lives; readiness says it cannot serve.
    const ready = await expectStoreOutage(url, 'alice');
    expect(ready.body).toMatchObject({ status: 'not ready', store: false });
  });

  it('serves and runs searches once Redis is up, and answers 503 again when it goes away', async () => {
    const url = running!.url;
    await redis.start();
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
    for (const o of results)
      expect(o.status, JSON.stringify(o)).toBe(truth[o.platform]!.includes('alice') ? 'hit' : 'miss');

    await redis.stop('SIGKILL');
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
