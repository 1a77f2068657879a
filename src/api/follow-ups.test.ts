import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import { ProfileUrlMatcher } from '../engine/linked-accounts.js';
import type { Outcome } from '../engine/outcome.js';
import type { Profile } from '../engine/profile.js';
import { ERROR_CODES, UserscoutError } from '../errors.js';
import type { SearchRecord } from '../store/store.js';
import type { AppDeps } from './deps.js';
import { followUpId, followUpNames, startFollowUps } from './follow-ups.js';
import type { Originator } from './start-searches.js';

const matcher = new ProfileUrlMatcher([
  { id: 'alpha', profile: 'https://alpha.test/u/{username}' },
  { id: 'bravo', profile: 'https://bravo.test/{username}' },
  { id: 'charlie', profile: 'https://charlie.test/@{username}' },
]);
const outcome = (platformId: string, status: Outcome['status'], profile?: Profile): Outcome => ({
  platform: platformId,
  platformId,
  category: 'social',
  url: `https://${platformId}.test/`,
  status,
  responseTime: 1,
  evidence: { rule: 'r', attempts: 1 },
  ...(profile ? { profile } : {}),
});

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

describe('startFollowUps', () => {
  const parent: SearchRecord = {
    id: 'parent',
    username: 'alice',
    state: 'completed',
    tier: 'free',
    client: 'ip:127.0.0.1',
    platformIds: ['alpha'],
    estimatedSeconds: 1,
    createdAt: 0,
    recursive: true,
  };
  /** Deps whose queue refuses every start with `refusal`; the errors logged. */
  const refusing = (refusal: Error) => {
    const logged: unknown[] = [];
    const deps = {
      catalogue: catalogueOf([entry('Alpha')]),
      health: { unhealthyIds: () => new Set<string>() },
      config: { freeLimit: 10, freeWindowMs: 60_000, proLimit: 10, proWindowMs: 60_000 },
      store: { getSearch: async () => undefined },
      runner: {
        admit: async () => {
          throw refusal;
        },
      },
    } as unknown as AppDeps;
    const log = {
      info: () => {},
      error: (o: { err: unknown }) => logged.push(o.err),
    } as unknown as Originator['log'];
    return { deps, log, logged };
  };

  it("lists a name the queue refused with the refusal's message", async () => {
    const { deps, log, logged } = refusing(new UserscoutError('queue_full'));
    expect(await startFollowUps(deps, parent, [{ username: 'bob', from: 'alpha' }], log)).toEqual([
      { username: 'bob', from: 'alpha', notSearched: ERROR_CODES.queue_full.message },
    ]);
    expect(logged).toEqual([]);
  });

  it("never shows a fault's own text: logged, and listed as an internal error", async () => {
    const fault = new Error('connect ECONNREFUSED 10.9.8.7:6379');
    const { deps, log, logged } = refusing(fault);
    expect(await startFollowUps(deps, parent, [{ username: 'bob', from: 'alpha' }], log)).toEqual([
      { username: 'bob', from: 'alpha', notSearched: ERROR_CODES.internal.message },
    ]);
    expect(logged).toEqual([fault]);
  });
});
