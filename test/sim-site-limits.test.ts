import { Agent, type Dispatcher, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { rateSignals } from '../src/schedule/rate-signals.js';
import type { SimRoute } from '../src/sim/behaviour.js';
import { SimWeb } from '../src/sim/server.js';
import {
  busiestWindow,
  LIMIT_ANSWERS,
  limitHeaders,
  policyHeaders,
  refusedUnder,
  SITE_LIMIT_RANGE,
  SiteLimits,
  type SiteRequest,
  siteLimit,
} from '../src/sim/site-limits.js';
import { catalogueOf, entry } from './support/catalogue.js';

describe('SiteLimits', () => {
  it('lets N through at once and N a second per address, answers Retry-After beyond, and counts', () => {
    let now = 0;
    const sites = new SiteLimits({ log: true, now: () => now });
    const answers = Array.from({ length: 4 }, () => sites.admit('a.test', '127.0.0.2', 3));
    expect(answers).toEqual([undefined, undefined, undefined, 1]);
    // Another address has its own bucket; a site without a limit only counts.
    expect(sites.admit('a.test', '127.0.0.3', 3)).toBeUndefined();
    expect(sites.admit('b.test', '127.0.0.2', undefined)).toBeUndefined();
    now = 340; // one token back (1/3 s)
    expect(sites.admit('a.test', '127.0.0.2', 3)).toBeUndefined();
    expect(sites.admit('a.test', '127.0.0.2', 3)).toBe(1);
    expect(sites.stats()).toEqual({
      requests: { 'a.test': { '127.0.0.2': 6, '127.0.0.3': 1 }, 'b.test': { '127.0.0.2': 1 } },
      limited: { total: 2, bySite: { 'a.test': 2 }, byAddress: { '127.0.0.2': 2 } },
    });
    expect(sites.log.filter((r) => r.limited)).toHaveLength(2);
  });

  it('logs whether the site had told the address its limit before each request', () => {
    const sites = new SiteLimits({ log: true, now: () => 0 });
    sites.admit('a.test', '127.0.0.2', 1);
    sites.told('a.test', '127.0.0.2');
    sites.admit('a.test', '127.0.0.2', 1); // refused: a 429 tells too
    sites.admit('a.test', '127.0.0.3', 1);
    sites.admit('b.test', '127.0.0.3', 1);
    sites.admit('b.test', '127.0.0.3', 1);
    sites.admit('b.test', '127.0.0.3', 1);
    expect(sites.log.map((r) => [r.site, r.address, r.limited, r.toldBefore])).toEqual([
      ['a.test', '127.0.0.2', false, false],
      ['a.test', '127.0.0.2', true, true],
      ['a.test', '127.0.0.3', false, false],
      ['b.test', '127.0.0.3', false, false],
      ['b.test', '127.0.0.3', true, false],
      ['b.test', '127.0.0.3', true, true],
    ]);
  });

  it('replays a log through a limit, counting what it would refuse', () => {
    const log = [0, 0, 0, 100, 600, 700].map((at) => ({
      at,
      sentFrom: at,
      site: 's',
      address: 'a',
      limited: false,
    }));
    // 2 a second after a burst of 3: the fourth (100 ms) and the sixth (700 ms) come too soon.
    expect(refusedUnder(log, 2, 3)).toEqual(new Map([['s a', 2]]));
    expect(refusedUnder(log, 10, 3)).toEqual(new Map([['s a', 0]]));
  });

  it('finds the busiest second per site and address', () => {
    const log = [0, 100, 999, 1000, 1500, 2600].map((at) => ({
      at,
      sentFrom: at,
      site: 's',
      address: 'a',
      limited: false,
    }));
    expect(
      busiestWindow([...log, { at: 10, sentFrom: 10, site: 's', address: 'b', limited: false }]),
    ).toEqual(
      new Map([
        ['s a', 3],
        ['s b', 1],
      ]),
    );
  });

  it("counts a request from when its client began sending it: a first request from its connection's start", () => {
    // Begun 400 ms apart: the first two on connections of their own, their handshakes delaying them.
    const log = [
      { at: 700, sentFrom: 0, site: 's', address: 'a', limited: false },
      { at: 710, sentFrom: 400, site: 's', address: 'a', limited: false },
      { at: 800, sentFrom: 800, site: 's', address: 'a', limited: false },
    ];
    expect(busiestWindow(log, 500)).toEqual(new Map([['s a', 2]]));
  });
});

describe('siteLimit', () => {
  it('seeds each platform within the range, the same on every run', () => {
    const platforms = catalogueOf(Array.from({ length: 40 }, (_, i) => entry(`P ${i}`))).platforms;
    const limits = platforms.map((p) => siteLimit(p, 7));
    expect(limits).toEqual(platforms.map((p) => siteLimit(p, 7)));
    for (const n of limits) {
      expect(n).toBeGreaterThanOrEqual(SITE_LIMIT_RANGE.min);
      expect(n).toBeLessThanOrEqual(SITE_LIMIT_RANGE.max);
    }
    expect(new Set(limits).size).toBeGreaterThan(1);
  });

  it('honours a platform’s own budget: strict, yet above what it promises', () => {
    const [slow, fast] = catalogueOf([
      entry('Slow', { budget: { perSecond: 0.5 } }),
      entry('Fast', { budget: { perSecond: 20, burst: 30 } }),
    ]).platforms;
    expect(siteLimit(slow!, 1)).toBe(2);
    expect(siteLimit(fast!, 1)).toBe(31);
  });
});

describe('limitHeaders and policyHeaders', () => {
  it("say the site's limit in each header form, read back by the engine's parser", () => {
    for (const answer of LIMIT_ANSWERS) {
      const signals = rateSignals(limitHeaders(answer, 2, 1), Date.now());
      expect(signals.waitMs, answer).toBe(1000);
      const stating = answer === 'ratelimit' || answer === 'ratelimit-fields';
      expect(signals.statedPerSecond, answer).toBe(stating ? 2 : undefined);
      expect(policyHeaders(answer, 2) !== undefined, answer).toBe(stating);
    }
  });

  /** Two requests to `route`'s host on one connection, each answer handed to `seen`; the log after. */
  async function twoRequests(
    route: SimRoute & { readonly host: string },
    seen: (answer: Dispatcher.ResponseData) => void = () => {},
  ): Promise<readonly SiteRequest[]> {
    const sim = new SimWeb({ routes: [route], logRequests: true });
    const { port } = await sim.start();
    const agent = new Agent({ connections: 1 });
    try {
      for (const name of ['x', 'y']) {
        const answer = await request(`http://127.0.0.1:${port}/u/${name}`, {
          dispatcher: agent,
          headers: { host: route.host },
        });
        seen(answer);
        await answer.body.text();
      }
      return sim.siteLog;
    } finally {
      await agent.close();
      await sim.stop();
    }
  }
  const notFound = () => ({ kind: 'respond' as const, status: 404, body: 'no' });

  it("logs when a request was begun: a connection's first from the connection's start", async () => {
    const [first, second] = await twoRequests({ host: 'paced.test', handle: notFound });
    expect(first!.sentFrom).toBeLessThan(first!.at);
    expect(second!.sentFrom).toBe(second!.at);
  });

  it('logs a site as having told its limit once an answer stated its policy', async () => {
    const route = {
      host: 'stating.test',
      limit: { key: 'stating.test', perSecond: 50, answer: 'ratelimit' as const },
      handle: notFound,
    };
    const log = await twoRequests(route, (answer) =>
      expect(answer.headers['ratelimit-policy']).toBeDefined(),
    );
    expect(log.map((r) => r.toldBefore)).toEqual([false, true]);
  });
});
