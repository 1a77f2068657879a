import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import { outcomeOf } from '../../test/support/outcome.js';
import { queuedSearch } from '../../test/support/search-job.js';
import { ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import type { Profile } from '../engine/verdict/profile.js';
import { ERROR_CODES, UserscoutError } from '../errors.js';
import type { SearchRecord } from '../store/store.js';
import type { AppDeps } from './deps.js';
import {
  followUpId,
  followUpNames,
  followUpsOf,
  mayWait,
  refusalKind,
  startFollowUps,
} from './follow-ups.js';
import type { Originator } from './start-searches.js';
import { NOT_QUEUED } from './start-searches.js';

const matcher = new ProfileUrlMatcher([
  { id: 'alpha', profile: 'https://alpha.test/u/{username}' },
  { id: 'bravo', profile: 'https://bravo.test/{username}' },
  { id: 'charlie', profile: 'https://charlie.test/@{username}' },
]);
const outcome = (platformId: string, status: Outcome['status'], profile?: Profile): Outcome =>
  outcomeOf(platformId, status, profile ? { profile } : {});

describe('followUpNames', () => {
  it("finds the new names in hits' links to other platforms and in ids ending in Username", () => {
    const results = [
      outcome('bravo', 'hit', {
        ids: { githubUsername: 'Carol', userId: '12345', twitterUsername: ' dave ' },
      }),
      outcome('alpha', 'hit', {
        links: ['https://bravo.test/bob', 'https://charlie.test/@alice', 'https://elsewhere.test/x'],
      }),
    ];
    // Hits in platform order: alpha's links first, then bravo's ids.
    expect(followUpNames(results, matcher, 'alice', 10)).toEqual([
      { username: 'bob', from: 'alpha' },
      { username: 'Carol', from: 'bravo' },
      { username: 'dave', from: 'bravo' },
    ]);
  });

  it('never gives the searched name or one name twice (case-insensitive), nor a link to the same platform', () => {
    const results = [
      outcome('alpha', 'hit', {
        links: ['https://alpha.test/u/zed', 'https://bravo.test/ALICE', 'https://bravo.test/Bob'],
        ids: { bravoUsername: 'bob' },
      }),
      outcome('charlie', 'hit', { links: ['https://bravo.test/BOB'], ids: { xUsername: 'Alice' } }),
    ];
    expect(followUpNames(results, matcher, 'alice', 10)).toEqual([{ username: 'Bob', from: 'alpha' }]);
  });

  it('reads only hits, and stops at the cap', () => {
    const results = [
      outcome('alpha', 'miss', { links: ['https://bravo.test/missed'] }),
      outcome('bravo', 'hit', { links: ['https://alpha.test/u/a1', 'https://alpha.test/u/a2'] }),
      outcome('charlie', 'hit', { ids: { someUsername: 'a3' } }),
    ];
    expect(followUpNames(results, matcher, 'alice', 2).map((n) => n.username)).toEqual(['a1', 'a2']);
    expect(followUpNames(results, matcher, 'alice', 0)).toEqual([]);
  });
});

describe('followUpId', () => {
  it('is a UUID derived from the parent and the name, case-insensitive', () => {
    const id = followUpId('6f1c9a52-0d7e-4a53-9b0e-8a7e7d1f2c3b', 'Bob');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(id).toMatch(/^.{14}8.{3}-[89ab]/);
    expect(followUpId('6f1c9a52-0d7e-4a53-9b0e-8a7e7d1f2c3b', 'bob')).toBe(id);
    expect(followUpId('6f1c9a52-0d7e-4a53-9b0e-8a7e7d1f2c3b', 'rabbit')).not.toBe(id);
    expect(followUpId('0a1c9a52-0d7e-4a53-9b0e-8a7e7d1f2c3b', 'bob')).not.toBe(id);
  });
});

describe('refusalKind', () => {
  it('waits out a full queue, throws what cannot be recorded now, records anything else', () => {
    expect(refusalKind(new UserscoutError('queue_full'))).toBe('later');
    expect(refusalKind(new UserscoutError('unavailable'))).toBe('passing');
    expect(refusalKind(new UserscoutError('store_unavailable'))).toBe('passing');
    for (const code of ['invalid_username', 'bad_request', 'internal', 'rate_limited'] as const)
      expect(refusalKind(new UserscoutError(code))).toBe('lasting');
    expect(refusalKind(new Error('boom'))).toBe('lasting');
  });
});

describe('mayWait', () => {
  it('holds while the search completed less than followUpRetryForMs ago', () => {
    expect(mayWait({ createdAt: 0, finishedAt: 1_000 }, 1_000 + 59_999, 60_000)).toBe(true);
    expect(mayWait({ createdAt: 0, finishedAt: 1_000 }, 1_000 + 60_000, 60_000)).toBe(false);
    expect(mayWait({ createdAt: 5_000 }, 6_000, 60_000)).toBe(true);
    expect(mayWait({ createdAt: 0, finishedAt: 1_000 }, 1_000, 0)).toBe(false);
  });
});

/** Alice's recursive search on Alpha, completed at `finishedAt` (begun a second before). */
function completedRecursive(finishedAt: number): SearchRecord {
  return queuedSearch('parent', 'alice', ['alpha'], {
    state: 'completed',
    createdAt: finishedAt - 1_000,
    finishedAt,
    recursive: true,
  });
}

describe('startFollowUps', () => {
  const NOW = 10_000_000;
  const RETRY_FOR_MS = 15 * 60_000;
  const parent = completedRecursive(NOW - 30_000);
  /** Long enough ago that a full queue is no longer waited out. */
  const old: SearchRecord = { ...parent, finishedAt: NOW - RETRY_FOR_MS };
  const bob = { username: 'bob', from: 'alpha' };

  /** Deps whose queue refuses every start with `refusal` (undefined: admits, and start fails on `enqueue`); the errors logged. */
  const refusing = (
    refusal: Error | undefined,
    options: { stored?: SearchRecord; enqueue?: Error; updates?: unknown[] } = {},
  ) => {
    const logged: unknown[] = [];
    const quota = { taken: 0 };
    const deps = {
      catalogue: catalogueOf([entry('Alpha')]),
      health: { unhealthyIds: () => new Set<string>() },
      config: {
        freeLimit: 10,
        freeWindowMs: 60_000,
        proLimit: 10,
        proWindowMs: 60_000,
        followUpRetryForMs: RETRY_FOR_MS,
        followUpLeaseMs: 60_000,
        maxFollowUps: 10,
        budgetPerSecond: 10,
        budgetBurst: 10,
        unmeasuredLatencyMs: 1_000,
        timeoutMs: 10_000,
        concurrency: 10,
        egress: [],
        maxRunningSearches: 10,
      },
      now: () => NOW,
      latencies: async () => new Map(),
      store: {
        getSearch: async (id: string) => (id === options.stored?.id ? options.stored : undefined),
        claimLease: async () => true,
        updateSearch: async (_id: string, patch: unknown) => options.updates?.push(patch),
        createSearch: async () => {},
      },
      searchQuota: {
        take: async () => {
          quota.taken++;
          return { granted: true };
        },
        release: async () => {
          quota.taken--;
        },
      },
      runner: {
        admit: async () => {
          if (refusal) throw refusal;
        },
        enqueue: async () => {
          throw options.enqueue;
        },
        stats: async () => ({ running: 0, queued: 0 }),
        queuedAhead: async () => 0,
      },
    } as unknown as AppDeps;
    const log = {
      info: () => {},
      warn: () => {},
      error: (o: { err: unknown }) => logged.push(o.err),
    } as unknown as Originator['log'];
    return { deps, log, logged, quota };
  };

  it('leaves the names waiting, listing none, while the queue is full and the search is recent', async () => {
    const { deps, log, logged } = refusing(new UserscoutError('queue_full'));
    expect(await startFollowUps(deps, parent, [bob, { username: 'rabbit', from: 'alpha' }], log)).toEqual({
      settled: false,
      waiting: 2,
    });
    expect(logged).toEqual([]);
  });

  it('lists a name the queue still refuses once the search completed followUpRetryForMs ago: queue full', async () => {
    const { deps, log } = refusing(new UserscoutError('queue_full'));
    expect(await startFollowUps(deps, old, [bob], log)).toEqual({
      settled: true,
      followUps: [{ ...bob, notSearched: 'queue full' }],
    });
  });

  it('lists at once a name no platform takes, though the queue is full', async () => {
    const { deps, log } = refusing(new UserscoutError('queue_full'));
    expect(await startFollowUps(deps, parent, [{ username: 'a b', from: 'alpha' }], log)).toEqual({
      settled: true,
      followUps: [{ username: 'a b', from: 'alpha', notSearched: expect.stringMatching(/^username /) }],
    });
  });

  it('throws, recording nothing, when the runner or the store is unavailable', async () => {
    for (const code of ['unavailable', 'store_unavailable'] as const) {
      const { deps, log } = refusing(new UserscoutError(code));
      await expect(startFollowUps(deps, old, [bob], log)).rejects.toMatchObject({ code });
    }
  });

  it('lists as not queued a name the queue refused once stored (its id taken), its quota given back', async () => {
    const { deps, log, quota } = refusing(undefined, { enqueue: new UserscoutError('queue_full') });
    // failSearch reads the search it would end: none here, so it leaves it.
    expect(await startFollowUps(deps, parent, [bob], log)).toEqual({
      settled: true,
      followUps: [{ ...bob, notSearched: 'not queued' }],
    });
    expect(quota.taken).toBe(0);
  });

  it('lists as not queued a follow-up an earlier attempt stored and the queue refused', async () => {
    const stored: SearchRecord = {
      ...parent,
      id: followUpId(parent.id, 'bob'),
      username: 'bob',
      recursive: undefined,
      state: 'error',
      error: NOT_QUEUED,
    };
    const { deps, log } = refusing(new UserscoutError('queue_full'), { stored });
    expect(await startFollowUps(deps, parent, [bob], log)).toEqual({
      settled: true,
      followUps: [{ ...bob, notSearched: 'not queued' }],
    });
  });

  it("never shows a fault's own text: logged, and listed as an internal error", async () => {
    const fault = new Error('connect ECONNREFUSED 10.9.8.7:6379');
    const { deps, log, logged } = refusing(fault);
    expect(await startFollowUps(deps, parent, [bob], log)).toEqual({
      settled: true,
      followUps: [{ ...bob, notSearched: ERROR_CODES.internal.message }],
    });
    expect(logged).toEqual([fault]);
  });
});

describe('followUpsOf', () => {
  it('records nothing while the queue refuses for now: the follow-ups stay pending', async () => {
    const NOW = 10_000_000;
    const updates: unknown[] = [];
    const deps = {
      catalogue: catalogueOf([entry('Alpha')]),
      health: { unhealthyIds: () => new Set<string>() },
      config: {
        freeLimit: 10,
        freeWindowMs: 60_000,
        followUpRetryForMs: 60_000,
        followUpLeaseMs: 1_000,
        maxFollowUps: 10,
      },
      now: () => NOW,
      store: {
        getSearch: async () => undefined,
        claimLease: async () => true,
        updateSearch: async (_id: string, patch: unknown) => updates.push(patch),
      },
      runner: {
        admit: async () => {
          throw new UserscoutError('queue_full');
        },
      },
    } as unknown as AppDeps;
    const log = { info: () => {}, error: () => {} } as unknown as Originator['log'];
    const search = completedRecursive(NOW - 1_000);
    const hits = [outcome('alpha', 'hit', { links: ['https://bravo.test/bob'] })];
    expect(await followUpsOf(deps, search, hits, matcher, log)).toBeUndefined();
    expect(updates).toEqual([]);
    // Past followUpRetryForMs the same refusal is recorded.
    const late = { ...deps, now: () => NOW + 60_000 } as AppDeps;
    expect(await followUpsOf(late, search, hits, matcher, log)).toEqual([
      { username: 'bob', from: 'alpha', notSearched: 'queue full' },
    ]);
    expect(updates).toEqual([{ followUps: [{ username: 'bob', from: 'alpha', notSearched: 'queue full' }] }]);
  });
});
