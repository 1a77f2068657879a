/**
 * The README's cluster commands on one machine: an API process and two workers,
 * started with the same settings (one PORT for all, as the commands give none of
 * their own), all stay up, each worker on a port of its own that it logs, and a
 * search through the API completes on the simulated web.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, pollUntilDone, postSearch, tempDir } from '../support/service.js';
import { killHard, simServeEnv, startAll, startUserscout, type UserscoutProcess } from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

const specs = Array.from({ length: 6 }, (_, i) => entry(`One Machine ${i}`));
const catalogue = catalogueOf(specs);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  // The name exists on the even platforms.
  accounts: (p) => (catalogue.platforms.indexOf(p) % 2 === 0 ? ['alice'] : []),
  latency: () => 5,
});
const sim = new SimWeb({ truth: emulation.truth, routes: emulation.routes });
const prefix = uniquePrefix('one-machine');
const processes: UserscoutProcess[] = [];
let redis: Redis;

/** A port free right now, which every process is then told to use, as one shell's PORT would. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  redis = await connectTestRedis();
  await sim.start();
  const dir = tempDir('userscout-one-machine-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    USERSCOUT_REDIS_PREFIX: prefix,
    ...simServeEnv({ dataDir: dir, catalogueFile, connectTo: sim.connectTo, caFile, timeoutMs: 5000 }),
    PORT: String(await freePort()),
  };
  // The API first, as the README lists it: the workers start while it holds PORT.
  processes.push(await startUserscout('api', 'api', env));
  await startAll(
    [startUserscout('worker-1', 'worker', env), startUserscout('worker-2', 'worker', env)],
    processes,
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map(killHard));
  await sim.stop();
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
}, 30_000);

describe('cluster mode on one machine, with the same settings for every process', () => {
  it('gives each worker a port of its own, logged, and keeps every process up', async () => {
    const [api, ...workers] = processes;
    const ports = processes.map((p) => new URL(p.url).port);
    expect(new Set(ports).size).toBe(3);
    for (const worker of workers) {
      const health = await json(`${worker.url}/healthz`);
      expect(health.status).toBe(200);
    }
    expect((await json(`${api!.url}/healthz`)).status).toBe(200);
    for (const p of processes) expect(p.child.exitCode, `${p.name}: ${p.stderr.join('')}`).toBeNull();
  });

  it('completes a search through the API on the workers', async () => {
    const api = processes[0]!;
    const started = await postSearch(api.url, { username: 'alice' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const done = await pollUntilDone(api.url, started.body.queryId, '&include=all', 100, 60_000);
    expect(done.body.status).toBe('completed');
    const hits = (done.body.results as { platform: string; status: string }[])
      .filter((r) => r.status === 'hit')
      .map((r) => r.platform)
      .sort();
    expect(hits).toEqual(['One Machine 0', 'One Machine 2', 'One Machine 4']);
    // Both workers stayed up the whole time.
    for (const p of processes) expect(p.child.exitCode).toBeNull();
  });
});
