import { describe, expect, it } from 'vitest';
import {
  budgetOrigin,
  identitiesFor,
  identitiesOf,
  politenessBound,
  runningWithinDeadline,
  sentBound,
  sustainedRate,
} from '../../bench/politeness.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const catalogue = catalogueOf([
  entry('Alone'),
  entry('Shared A', { home: 'https://shared.test/', profile: 'https://shared.test/a/{username}' }),
  entry('Shared B', { home: 'https://shared.test/', profile: 'https://shared.test/b/{username}' }),
  entry('Strict', { budget: { perSecond: 0.5 } }),
  entry('Per user', { home: 'https://users.test/', profile: 'https://{username}.users.test/' }),
]);
const byName = (name: string) => catalogue.platforms.find((p) => p.name === name)!;
const options = {
  searches: 10,
  identities: 1,
  budget: { perSecond: 4, burst: 4 },
  profile: 'zero' as const,
  seed: 1,
  timeoutMs: 10_000,
};

describe('politenessBound', () => {
  it('counts requests per origin, platforms sharing one sharing its budget', () => {
    const plain = catalogue.platforms.filter((p) => p.name !== 'Strict');
    // shared.test: 10 searches x 2 platforms, 4 at once then 4 a second.
    expect(politenessBound(plain, options)).toEqual({
      boundMs: 4_000,
      origin: 'shared.test',
      requests: 20,
    });
    // A burst of 4 through each identity, then 8 a second.
    expect(politenessBound(plain, { ...options, identities: 2 }).boundMs).toBe(1_500);
  });

  it('uses a platform’s own budget, and counts a username-host platform as one site', () => {
    // Its own 0.5 a second, burst 1: 9 requests paced after the first.
    expect(politenessBound(catalogue.platforms, options)).toMatchObject({ boundMs: 18_000, requests: 10 });
    expect(budgetOrigin(byName('Per user'))).toContain('{username}');
  });

  it('sustains budget x identities ÷ platforms searches a second on the busiest origin', () => {
    const plain = catalogue.platforms.filter((p) => p.name !== 'Strict');
    // shared.test: 2 platforms at 4 a second: 2 searches a second.
    expect(sustainedRate(plain, { identities: 1, budget: options.budget })).toEqual({
      perHour: 7_200,
      origin: 'shared.test',
      platforms: 2,
    });
    expect(sustainedRate(plain, { identities: 3, budget: options.budget }).perHour).toBe(21_600);
    // The strict platform's own budget (0.5 a second) sets it when searched.
    expect(sustainedRate(catalogue.platforms, { identities: 1, budget: options.budget }).perHour).toBe(1_800);
    expect(identitiesFor(plain, { perHour: 100_000, budget: options.budget })).toBe(14);
    expect(identitiesFor(plain, { perHour: 7_200, budget: options.budget })).toBe(1);
  });

  it('reads the identities of a server’s egress setting', () => {
    expect(identitiesOf({})).toBe(1);
    expect(identitiesOf({ egress: ['addr:127.0.0.2', 'addr:127.0.0.3'] })).toBe(2);
    expect(identitiesOf({ egress: 'addr:127.0.0.2,addr:127.0.0.3' })).toBe(2);
  });

  it('paces the requests the sites received, where the bound counts one per searched platform', () => {
    const plain = catalogue.platforms.filter((p) => p.name !== 'Strict');
    // shared.test received 28 requests (its 20 checks and 8 more): 4 at once, then 24 at 4 a second.
    expect(sentBound(plain, { 'shared.test': 28, 'alone.test': 3 }, options)).toEqual({
      boundMs: 6_000,
      origin: 'shared.test',
      requests: 28,
    });
    // A site the catalogue does not search is no origin of the bound; none received: no bound.
    expect(sentBound(plain, { 'elsewhere.test': 500 }, options)).toEqual({
      boundMs: 0,
      origin: '',
      requests: 0,
    });
  });

  it('runs as many searches per worker as the busiest origin drains within 0.9 x the deadline', () => {
    // archive.org's shape: 9 platforms on one site, 4 a second after a burst of 2.
    const nine = catalogueOf(
      Array.from({ length: 9 }, (_, i) =>
        entry(`Wayback ${i}`, {
          home: 'https://archive.test/',
          profile: `https://archive.test/${i}/{username}`,
        }),
      ),
    ).platforms;
    const budget = { perSecond: 4, burst: 2 };
    // 4 searches queue 36 requests: the last waits (36 - 2) ÷ 4 = 8.5 s; 5 would wait 10.75 s.
    expect(runningWithinDeadline(nine, { identities: 1, budget, timeoutMs: 10_000 })).toBe(4);
    // Two identities: 8 searches, (72 - 4) ÷ 8 = 8.5 s; 9 would wait 9.6 s, over 0.9 x 10 s.
    expect(runningWithinDeadline(nine, { identities: 2, budget, timeoutMs: 10_000 })).toBe(8);
    expect(runningWithinDeadline(nine, { identities: 2, budget, timeoutMs: 10_000, share: 1 })).toBe(9);
    // The strictest origin decides: Strict's own 0.5 a second, burst 1, one platform: 0.9 x 10 x 0.5 + 1.
    expect(runningWithinDeadline(catalogue.platforms, { identities: 1, budget, timeoutMs: 10_000 })).toBe(5);
    // Never fewer than one, even when one search overruns the deadline.
    expect(runningWithinDeadline(nine, { identities: 1, budget, timeoutMs: 100 })).toBe(1);
  });
});
