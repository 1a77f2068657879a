/**
 * The cluster's request budgets on a real Redis: the Lua script against the
 * rate-budget contract, what it leaves in Redis (nothing on a refusal, keys
 * that expire), two workers' budgets sharing one origin, a worker killed with
 * slots reserved, and the fallback to the process's own budget while Redis
 * cannot be reached, down to a search that still checks every platform.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { closeRedis, createRedisClient } from '../../src/redis/connection.js';
import { FallbackRateBudget } from '../../src/redis/fallback-budget.js';
import { RedisRateBudget } from '../../src/redis/rate-budget.js';
import { LocalRateBudget } from '../../src/schedule/local-rate-budget.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { busiestWindow } from '../../src/sim/site-limits.js';
import {
  describeRateBudgetContract,
  expectWithinBudget,
  type Reserved,
  reserveTimed,
  uniqueKey,
} from '../rate-budget.contract.js';
import { budgetAllows, watchingStalls } from '../support/budget-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';
import { waitFor } from './processes.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const prefix = uniquePrefix('budget');
let redis: Redis;
let other: Redis;
const closing: Redis[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  other = await connectTestRedis();
});

afterAll(async () => {
  for (const client of closing) await closeRedis(client);
  if (redis) {
    await deleteKeys(redis, `${prefix}:`);
    await redis.quit();
  }
  await other?.quit();
});

describe('RedisRateBudget', () => {
  describeRateBudgetContract(() => new RedisRateBudget({ redis, prefix }));

  it('writes nothing when it refuses', async () => {
    const budget = new RedisRateBudget({ redis, prefix });
    const limit = { perSecond: 0.1, burst: 1 };
    const [a, b] = [uniqueKey('nothing-a'), uniqueKey('nothing-b')];
    await budget.reserve([a], limit, 0);
    await budget.reserve([b], limit, 0);
    const keys = [a, b].map((k) => budget.keyOf(k));
    const before = await Promise.all(keys.map((k) => redis.get(k)));
    expect(before.every((v) => v !== null)).toBe(true);
    expect(await budget.reserve([a, b], limit, 1_000)).toBeUndefined();
    expect(await Promise.all(keys.map((k) => redis.get(k)))).toEqual(before);
    // Nor is any expiry moved on.
    const ttls = await Promise.all(keys.map((k) => redis.pttl(k)));
    expect(await budget.reserve([b, a], limit, 1_000)).toBeUndefined();
    const later = await Promise.all(keys.map((k) => redis.pttl(k)));
    for (const [i, ttl] of later.entries()) expect(ttl).toBeLessThanOrEqual(ttls[i]!);
  });

  it('lets each key expire when its last slot has passed', async () => {
    const budget = new RedisRateBudget({ redis, prefix });
    const key = uniqueKey('expire');
    await budget.reserve([key], { perSecond: 0.1, burst: 1 }, 0);
    const ttl = await redis.pttl(budget.keyOf(key));
    expect(ttl).toBeGreaterThan(5_000);
    expect(ttl).toBeLessThanOrEqual(10_001);
    const short = uniqueKey('expire-short');
    await budget.reserve([short], { perSecond: 20, burst: 1 }, 0);
    await waitFor(
      'the key to expire',
      async () => ((await redis.exists(budget.keyOf(short))) === 0 ? true : undefined),
      5_000,
      20,
    );
  });

  it('holds one budget for two workers sharing an origin', async () => {
    const limit = { perSecond: 5, burst: 2 };
    const key = uniqueKey('shared');
    // Two connections stand for two workers, each with its own budget object.
    const workers = [redis, other].map((client) => new RedisRateBudget({ redis: client, prefix }));
    const reserved: Reserved[] = [];
    await Promise.all(
      workers.map(async (budget) => {
        for (let i = 0; i < 8; i++) reserved.push(await reserveTimed(budget, [key], limit));
      }),
    );
    expect(reserved).toHaveLength(16);
    // Together they get the schedule of one budget: the 16th slot is 14 intervals out.
    expectWithinBudget(reserved, limit);
    expect(Math.max(...reserved.map((r) => r.slot.waitMs))).toBeGreaterThan(14 * 200 - 1_000);
  });

  it('is slowed by a killed worker by at most one interval per slot it reserved', async () => {
    const limit = { perSecond: 1, burst: 1 };
    const key = uniqueKey('killed');
    const leaked = 3;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/cluster/fixtures/reserve-slots.ts',
        TEST_REDIS_URL,
        prefix,
        key,
        String(leaked),
        String(limit.perSecond),
        String(limit.burst),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      await waitFor(
        'the worker to reserve its slots',
        () => (out.includes('reserved') ? true : undefined),
        30_000,
        20,
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${err.slice(-1000)}`);
      });
    } finally {
      child.kill('SIGKILL');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
    expect(child.signalCode).toBe('SIGKILL');

    const budget = new RedisRateBudget({ redis, prefix });
    const first = await budget.reserve([key], limit, 60_000);
    // Its slots were real (they count), and cost at most one interval each.
    expect(first?.waitMs).toBeLessThanOrEqual(leaked * 1_000);
    const ttl = await redis.pttl(budget.keyOf(key));
    expect(ttl).toBeLessThanOrEqual((leaked + 1) * 1_000 + 1);
    // Past them, the budget runs at its rate again: the next slot is one interval later.
    const second = await budget.reserve([key], limit, 60_000);
    expect(second!.waitMs - first!.waitMs).toBeLessThanOrEqual(1_000 + 1);
    expect(second!.waitMs - first!.waitMs).toBeGreaterThan(900);
  }, 60_000);
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('FallbackRateBudget while Redis cannot be reached', () => {
  let unreachable: Redis;
  beforeAll(async () => {
    unreachable = createRedisClient(`redis://127.0.0.1:${await closedPort()}`);
    closing.push(unreachable);
  });

  it('reserves from the process budget, and no error reaches the caller', async () => {
    const errors: unknown[] = [];
    const budget = new FallbackRateBudget({
      primary: new RedisRateBudget({ redis: unreachable, prefix }),
      fallback: new LocalRateBudget(),
      onError: (error) => errors.push(error),
    });
    const limit = { perSecond: 5, burst: 2 };
    const key = uniqueKey('outage');
    const reserved: Reserved[] = [];
    for (let i = 0; i < 6; i++) reserved.push(await reserveTimed(budget, [key], limit));
    // Still a budget: a burst, then the rate.
    expect(reserved.slice(0, 2).map((r) => r.slot.waitMs)).toEqual([0, 0]);
    expectWithinBudget(reserved, limit);
    expect(errors).toHaveLength(6);
    expect(await redis.exists(new RedisRateBudget({ redis, prefix }).keyOf(key))).toBe(0);
  });

  it('skips Redis without a try while it is known to be down', async () => {
    const errors: unknown[] = [];
    const budget = new FallbackRateBudget({
      primary: new RedisRateBudget({ redis: unreachable, prefix }),
      fallback: new LocalRateBudget(),
      available: () => unreachable.status === 'ready',
      onError: (error) => errors.push(error),
    });
    expect(await budget.reserve([uniqueKey('down')], { perSecond: 5, burst: 1 }, 0)).toEqual({
      index: 0,
      waitMs: 0,
    });
    expect(errors).toEqual([]);
  });

  it('uses the shared budget when Redis answers', async () => {
    const budget = new FallbackRateBudget({
      primary: new RedisRateBudget({ redis, prefix }),
      fallback: new LocalRateBudget(),
      available: () => redis.status === 'ready',
    });
    const key = uniqueKey('up');
    await budget.reserve([key], { perSecond: 5, burst: 1 }, 0);
    expect(await redis.exists(new RedisRateBudget({ redis, prefix }).keyOf(key))).toBe(1);
  });

  it('lets a search check every platform, within the budget', async () => {
    const catalogue = catalogueOf(
      Array.from({ length: 6 }, (_, i) =>
        entry(`Outage budget ${i}`, {
          home: 'https://one.outage.test/',
          profile: `https://one.outage.test/p${i}/{username}`,
        }),
      ),
    );
    const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
      accounts: (p) => (catalogue.platforms.indexOf(p) % 2 === 0 ? ['alice'] : []),
      latency: () => 20,
    });
    const sim = new SimWeb({ truth: emulation.truth, routes: emulation.routes, logRequests: true });
    await sim.start();
    try {
      const caFile = join(tempDir(), 'sim-ca.pem');
      writeFileSync(caFile, sim.caCert);
      const config = loadConfig(
        // No control checks: this counts the checks' own requests (controls: test/cluster/controls.test.ts).
        {
          connectTo: sim.connectTo,
          caFile,
          refusePrivate: false,
          budgetPerSecond: 4,
          budgetBurst: 2,
          controlWindowMs: 0,
        },
        {},
      );
      const engine = createEngine(config, catalogue, {
        rateBudget: new FallbackRateBudget({
          primary: new RedisRateBudget({ redis: unreachable, prefix }),
          fallback: new LocalRateBudget(),
        }),
      });
      const outcomes: Outcome[] = [];
      const { lateMs } = await watchingStalls(async () => {
        try {
          for await (const outcome of engine.search('alice', catalogue.platforms)) outcomes.push(outcome);
        } finally {
          await engine.close();
        }
      });
      const truth = emulation.truth();
      expect(outcomes).toHaveLength(6);
      for (const o of outcomes) expect(o.status).toBe(truth[o.platform]!.includes('alice') ? 'hit' : 'miss');
      expect(sim.siteLog).toHaveLength(6);
      // 6 checks at 4 a second after a burst of 2: without a budget all 6 arrive at once; the
      // slots allow 3 in 400 ms, 5 counting LATE_MS (more if this thread stalled).
      const limit = { perSecond: config.budgetPerSecond, burst: config.budgetBurst };
      expect(busiestWindow(sim.siteLog, 400).get('one.outage.test 127.0.0.1')).toBeLessThanOrEqual(
        budgetAllows(limit, 400, lateMs),
      );
    } finally {
      await sim.stop();
    }
  });
});
