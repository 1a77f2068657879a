import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test/support/outcome.js';
import { accountLinks, ProfileUrlMatcher, withLinkedFrom } from './linked-accounts.js';
import type { Outcome } from './outcome.js';

const platforms = [
  { id: 'alpha', profile: 'https://alpha.test/u/{username}' },
  { id: 'bravo', profile: 'https://www.bravo.test/{username}' },
  { id: 'subdomain', profile: 'https://{username}.blog.test/' },
];
const outcome = (platformId: string, status: Outcome['status'], links?: string[]): Outcome =>
  outcomeOf(platformId, status, links ? { profile: { links } } : {});

describe('linked accounts', () => {
  const matcher = new ProfileUrlMatcher(platforms);

  it('matches profile URLs by template, with or without www, trailing slash or query', () => {
    expect(matcher.match('https://alpha.test/u/alice')).toEqual({ id: 'alpha', username: 'alice' });
    expect(matcher.match('http://www.alpha.test/u/Alice/?tab=1')).toEqual({ id: 'alpha', username: 'Alice' });
    expect(matcher.match('https://bravo.test/al%20ice')).toEqual({ id: 'bravo', username: 'al ice' });
    expect(matcher.match('https://alpha.test/u/alice/posts')).toBeUndefined();
    expect(matcher.match('https://alice.blog.test/')).toBeUndefined();
    expect(matcher.match('https://evil.test/?https://alpha.test/u/alice')).toBeUndefined();
  });

  it('links hits to the accounts their profiles point to, and marks those of the searched name', () => {
    const outcomes = [
      outcome('alpha', 'hit', [
        'https://bravo.test/alice',
        'https://alpha.test/u/alice',
        'https://bravo.test/alice2',
      ]),
      outcome('bravo', 'miss'),
      outcome('subdomain', 'miss', ['https://alpha.test/u/x']),
    ];
    const links = accountLinks(outcomes, matcher);
    expect(links).toEqual([
      { from: 'alpha', to: 'bravo', username: 'alice', url: 'https://bravo.test/alice' },
      { from: 'alpha', to: 'bravo', username: 'alice2', url: 'https://bravo.test/alice2' },
    ]);
    const marked = withLinkedFrom(outcomes, links, 'Alice');
    expect(marked[1]!.linkedFrom).toEqual(['alpha']);
    expect(marked[0]!.linkedFrom).toBeUndefined();
  });
});
