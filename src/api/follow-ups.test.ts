import { describe, expect, it } from 'vitest';
import { ProfileUrlMatcher } from '../engine/linked-accounts.js';
import type { Outcome } from '../engine/outcome.js';
import type { Profile } from '../engine/profile.js';
import { followUpNames } from './follow-ups.js';

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
