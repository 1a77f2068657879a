/**
 * What the per-check writes cost in Redis commands, counted by a redis-server of
 * this test's own (INFO commandstats, reset before each count; commands run by a
 * script count as well as the script). The capacity model (docs/deployment.md,
 * "4. Redis") rests on these: a batch of a search's checks is a few commands in
 * all plus about one per check for each kind of write, never several per check.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome, OutcomeStatus } from '../../src/engine/verdict/outcome.js';
import { RedisSharedChecks } from '../../src/redis/shared-checks.js';
import { progressSnapshot, type SearchEvent } from '../../src/runner/events.js';
import { RedisEventHub } from '../../src/runner/redis-events.js';
import { RedisStore } from '../../src/store/redis.js';
import { emptyByStatus } from '../../src/store/store.js';
import { type OwnRedis, ownRedis } from './redis-support.js';

const N = 100;
const T0 = Date.UTC(2026, 0, 1);
const prefix = 'ustest-commands';
let server: OwnRedis;
let redis: Redis;

beforeAll(async () => {
  server = await ownRedis();
  await server.start();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** The commands Redis ran during `work`, by name (INFO, CONFIG and PING left out). */
async function commandsDuring(work: () => Promise<unknown>): Promise<Map<string, number>> {
  await redis.config('RESETSTAT');
  await work();
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const [, name, n] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (!/^(info|config|ping)(\||$)/.test(name!)) calls.set(name!, Number(n));
  return calls;
}

const total = (calls: Map<string, number>) => [...calls.values()].reduce((a, b) => a + b, 0);

const STATUSES: readonly OutcomeStatus[] = ['hit', 'miss', 'unknown', 'error'];
const platformIds = Array.from({ length: N }, (_, i) => `site${i}`);

function outcome(platformId: string, i: number, username = 'alice'): Outcome {
  return {
    platform: platformId.toUpperCase(),
    platformId,
    category: 'coding',
    url: `https://${platformId}.example/${username}`,
    status: STATUSES[i % STATUSES.length]!,
    responseTime: 50 + i,
    evidence: { rule: 'missing: status 404', attempts: 1 },
  };
}

describe('Redis commands per check', () => {
  let store: RedisStore;

  beforeAll(async () => {
    store = new RedisStore({ redis, prefix, retentionMs: 3_600_000, now: () => T0 });
    await store.createSearch({
      id: 'warm',
      username: 'bob',
      state: 'running',
      tier: 'free',
      client: 'ip:203.0.113.7',
      platformIds,
      estimatedSeconds: 1,
      createdAt: T0,
    });
    // The texts every outcome refers to are interned once per deployment, not per check: done here.
    await store.addOutcomes(
      'warm',
      platformIds.map((id, i) => outcome(id, i, 'bob')),
    );
  });

  afterAll(async () => {
    await store?.close();
  });

  it("stores a batch of a search's outcomes in a few commands, whatever its length", async () => {
    await store.createSearch({
      id: 's1',
      username: 'alice',
      state: 'running',
      tier: 'free',
      client: 'ip:203.0.113.7',
      platformIds,
      estimatedSeconds: 1,
      createdAt: T0,
    });
    const calls = await commandsDuring(() =>
      store.addOutcomes(
        's1',
        platformIds.map((id, i) => outcome(id, i)),
      ),
    );
    // One count per status of the batch, one BITFIELD for the platforms seen, one RPUSH.
    expect(calls.get('hincrby')).toBe(STATUSES.length);
    expect(calls.get('bitfield')).toBe(1);
    expect(calls.get('rpush')).toBe(1);
    expect(total(calls)).toBeLessThanOrEqual(20);
    expect((await store.progress('s1')).checked).toBe(N);
    const stored = await store.listOutcomes('s1');
    expect(stored.map((s) => s.seq)).toEqual(platformIds.map((_, i) => i + 1));
    expect(stored.map((s) => s.outcome)).toEqual(platformIds.map((id, i) => outcome(id, i)));
    // Stored already, and a platform twice in one batch: stored once.
    expect(
      await store.addOutcomes('s1', [outcome('site3', 3), outcome('extra', 1), outcome('extra', 2)]),
    ).toEqual([undefined, N + 1, undefined]);
  });

  it("notes a batch of checks in a platform's statistics with one read and one write a platform", async () => {
    const calls = await commandsDuring(() =>
      store.recordChecks(
        platformIds.map((platformId, i) => ({
          platformId,
          status: STATUSES[i % STATUSES.length]!,
          responseTimeMs: 100,
          at: T0,
        })),
      ),
    );
    expect(total(calls)).toBeLessThanOrEqual(2 * N + 5);
    expect((await store.platformStats()).length).toBe(N);
  });

  it("notes a batch of cached outcomes in a few commands, whatever its length, and reads them back from the search's record in a few", async () => {
    await store.createSearch({
      id: 'cached',
      username: 'alice',
      state: 'running',
      tier: 'free',
      client: 'ip:203.0.113.7',
      platformIds,
      estimatedSeconds: 1,
      createdAt: T0,
    });
    await store.addOutcomes(
      'cached',
      platformIds.map((id, i) => outcome(id, i)),
    );
    const entries = platformIds.map((platformId, i) => ({
      searchId: 'cached',
      platformId,
      cachedAt: T0 + i,
      expiresAt: T0 + 60_000,
    }));
    const put = await commandsDuring(() => store.putCachedOutcomes('alice', entries));
    // The search's platforms (MULTI, HGETALL, HGET, EXEC), then one script appending the row.
    expect(put.get('rpush')).toBe(1);
    expect(total(put)).toBeLessThanOrEqual(10);
    let found = new Map<string, Outcome>();
    const read = await commandsDuring(async () => {
      found = await store.getCachedOutcomes('alice', platformIds, T0);
    });
    expect(found.size).toBe(N);
    expect(total(read), JSON.stringify([...read])).toBeLessThanOrEqual(12);
  });

  it('shares a check nobody else runs in two commands: the claim, then the outcome in its place', async () => {
    const shared = new RedisSharedChecks({ redis, prefix, leaseMs: 10_000, maxWaitMs: 10_000 });
    const calls = await commandsDuring(async () => {
      await Promise.all(platformIds.map((id, i) => shared.run(`${id}:alice`, async () => outcome(id, i))));
      // The outcome is written once the check returns, without waiting: let those writes land.
      await redis.ping();
    });
    expect(calls.get('set')).toBe(2 * N);
    expect(total(calls)).toBe(2 * N);
    // Within keepMs, the same check is the outcome already written.
    expect(
      await shared.run('site1:alice', async () => {
        throw new Error('checked twice');
      }),
    ).toEqual(outcome('site1', 1));
  });
});

describe('live events through Redis', () => {
  it("sends one search's events of one turn as one message, and every event arrives in order", async () => {
    const subscriber = new Redis(server.url, { maxRetriesPerRequest: 1 });
    const hub = new RedisEventHub({ publisher: redis, subscriber, prefix });
    try {
      const received: SearchEvent[] = [];
      const unsubscribe = hub.subscribe('s1', (event) => received.push(event));
      await hub.subscribed('s1');
      const progress = progressSnapshot(N, { checked: 0, byStatus: emptyByStatus() });
      const events: SearchEvent[] = [
        { type: 'started', progress },
        ...platformIds.map(
          (id, i): SearchEvent => ({ type: 'result', seq: i + 1, outcome: outcome(id, i), progress }),
        ),
      ];
      const calls = await commandsDuring(async () => {
        for (const event of events) hub.publish('s1', event);
        // Another turn: another message.
        await new Promise((resolve) => setImmediate(resolve));
        hub.publish('s1', { type: 'done', state: 'completed', progress });
        await redis.ping();
      });
      expect(calls.get('publish')).toBe(2);
      const deadline = Date.now() + 5_000;
      while (received.length < events.length + 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(received).toEqual([...events, { type: 'done', state: 'completed', progress }]);
      unsubscribe();
    } finally {
      await hub.close();
    }
  });
});
