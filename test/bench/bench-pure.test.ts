/**
 * The benchmark's pure pieces: percentiles, growth exponents, the comparison
 * of two runs, the command line and the measurement of a piece of work.
 */
import { describe, expect, it } from 'vitest';
import { whatBounds } from '../../bench/cases/machine-ceiling.js';
import { alsoCachingIn, benchDatabaseUrl, type StoreSize, sizeRow } from '../../bench/cases/store-size.js';
import { benchRedisUrl, sumUsage } from '../../bench/cluster.js';
import { change, formatComparison, textTable } from '../../bench/format.js';
import { parseOptions } from '../../bench/options.js';
import {
  budgetBoundSubset,
  DEFENDED_SHARE,
  emulatePlatformSet,
  latencyOf,
  loadPlatformSet,
  physicalLimit,
} from '../../bench/platform-set.js';
import { budgetOrigin, sustainedRate } from '../../bench/politeness.js';
import { measure, type ProcessUsage } from '../../bench/process-usage.js';
import type { BenchResults } from '../../bench/results.js';
import { resultsFileName } from '../../bench/results.js';
import { distribution, growthExponent, percentile } from '../../bench/stats.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { createStore } from '../../src/store/create-store.js';
import { splitStore } from '../../src/store/split-store.js';
import { putCached } from '../support/cached.js';

describe('percentile', () => {
  it('is nearest-rank over the sorted samples', () => {
    const samples = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(samples, 0.5)).toBe(5);
    expect(percentile(samples, 0.95)).toBe(10);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([42], 0.99)).toBe(42);
    expect(percentile([], 0.5)).toBeUndefined();
  });

  it('summarises a distribution without changing the samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(distribution(samples)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(samples[0]).toBe(100);
    expect(distribution([])).toBeUndefined();
  });
});

describe('growthExponent', () => {
  it('is 1 for linear cost, 0 for flat, 2 for quadratic', () => {
    expect(growthExponent(100, 10, 1000, 100)).toBeCloseTo(1);
    expect(growthExponent(100, 10, 1000, 10)).toBeCloseTo(0);
    expect(growthExponent(100, 1, 1000, 100)).toBeCloseTo(2);
    expect(growthExponent(100, 0, 1000, 1)).toBeNaN();
  });
});

function run(value: number, commit: string): BenchResults {
  return {
    version: 1,
    date: '2025-01-01T00:00:00.000Z',
    commit,
    quick: false,
    seed: 1,
    serverSettings: {},
    machine: { cpu: 'x', cores: 2, memoryGb: 4, node: 'v20', platform: 'linux-x64', loadAtStart: 0 },
    durationS: 1,
    cases: [
      {
        id: '2',
        title: 'overhead',
        columns: [{ key: 'cpu', title: 'CPU ms/1000 checks', better: 'lower' }],
        rows: [{ label: 'builtin', values: { cpu: value } }],
        targets: [],
        notes: [],
        settings: {},
      },
    ],
  };
}

describe('comparison', () => {
  it('says how much a figure changed and whether that is better', () => {
    expect(change(200, 100, 'lower')).toBe('-50.0% better');
    expect(change(100, 150, 'lower')).toBe('+50.0% worse');
    expect(change(100, 150, 'higher')).toBe('+50.0% better');
    expect(change(100, 150, 'none')).toBe('+50.0%');
    expect(change(7, 7, 'lower')).toBe('=');
    expect(change(0, 3, 'lower')).toBe('new worse');
  });

  it('lines up every figure of both runs', () => {
    const text = formatComparison(run(400, 'aaa'), run(300, 'bbb'));
    expect(text).toContain('aaa (before)');
    expect(text).toMatch(/2 \| builtin \| CPU ms\/1000 checks\s+400\s+300\s+-25\.0% better/);
  });

  it('aligns a text table', () => {
    expect(
      textTable(
        ['', 'n'],
        [
          ['a', '1'],
          ['bbb', '100'],
        ],
      ),
    ).toBe('       n\n---  ---\na      1\nbbb  100');
  });
});

describe('options', () => {
  it('reads cases, quick, server settings and compare', () => {
    const o = parseOptions([
      '--case',
      '1,2',
      '--quick',
      '--server',
      'maxRunningSearches=50,concurrency=1024',
      '--compare=a.json',
    ]);
    expect(o.cases).toEqual(['1', '2']);
    expect(o.quick).toBe(true);
    expect(o.server).toEqual({ maxRunningSearches: '50', concurrency: '1024' });
    expect(o.compare).toBe('a.json');
    expect(parseOptions([]).cases).toBeUndefined();
  });

  it('refuses what it does not know, naming it', () => {
    expect(() => parseOptions(['--fast'])).toThrow(/unknown option --fast/);
    expect(() => parseOptions(['--seed', 'x'])).toThrow(/--seed must be a whole number; received x/);
    expect(() => parseOptions(['--with', 'b.json'])).toThrow(/--with needs --compare/);
    expect(() => parseOptions(['--server', 'oops'])).toThrow(/NAME=VALUE/);
    expect(() => parseOptions(['--server', 'oops,egress=addr:127.0.0.2'])).toThrow(/NAME=VALUE/);
  });

  it("reads a list setting's further values after it in --server", () => {
    expect(
      parseOptions(['--server', 'egress=addr:127.0.0.2,addr:127.0.0.3,concurrency=1024']).server,
    ).toEqual({
      egress: 'addr:127.0.0.2,addr:127.0.0.3',
      concurrency: '1024',
    });
  });

  it('names results files by UTC date and commit', () => {
    expect(resultsFileName(new Date('2025-03-04T23:59:00Z'), 'abc1234')).toBe('2025-03-04-abc1234.json');
  });
});

describe('cluster launcher helpers', () => {
  it('sums the usage of every process of a deployment', () => {
    const reading = (cpu: number, rss: number, at: number) => ({
      userUs: cpu,
      systemUs: cpu / 2,
      maxRssBytes: rss,
      rssBytes: rss / 2,
      at,
    });
    expect(sumUsage([reading(1000, 100, 5), reading(3000, 300, 7)])).toEqual({
      userUs: 4000,
      systemUs: 2000,
      maxRssBytes: 400,
      rssBytes: 200,
      at: 7,
    });
  });

  it('finds Redis at REDIS_URL, else on the local default port', () => {
    expect(benchRedisUrl({ REDIS_URL: 'redis://10.0.0.5:6380/2' })).toBe('redis://10.0.0.5:6380/2');
    expect(benchRedisUrl({})).toBe('redis://127.0.0.1:6379');
  });
});

describe('measure', () => {
  it('reads usage before and after the work, and gives its result with what it cost', async () => {
    const readings: ProcessUsage[] = [
      { userUs: 1_000, systemUs: 500, maxRssBytes: 1_048_576, rssBytes: 524_288, at: 100 },
      { userUs: 5_000, systemUs: 1_500, maxRssBytes: 3 * 1_048_576, rssBytes: 524_288, at: 110 },
    ];
    const order: string[] = [];
    const measured = await measure(
      async () => {
        order.push('usage');
        return readings.shift()!;
      },
      async () => {
        order.push('work');
        return 'done';
      },
    );
    expect(order).toEqual(['usage', 'work', 'usage']);
    expect(measured.result).toBe('done');
    expect(measured.before.rssBytes).toBe(524_288);
    expect(measured.usage).toEqual({ cpuMs: 5, wallMs: 10, cores: 0.5, maxRssMb: 3 });
  });
});

describe('case 9 rows', () => {
  const base = {
    searches: 8,
    outcomes: 8 * 1_000,
    kept: 80_000,
    shared: 250_000,
    total: 110_000,
    sweepMsPerSearch: 0.5,
    sweepPauseMs: 1,
    statuses: 'miss 60%, hit 40%',
  };

  it("gives PostgreSQL its own cache's figure and nothing before compact outcomes", () => {
    const row = sizeRow({ backend: 'postgresql', ...base, cache: 70_000 } satisfies StoreSize);
    expect(row.label).toBe('postgresql');
    expect(row.values).toMatchObject({
      kept: 80_000,
      perOutcome: 80,
      cache: 70_000,
      sharedKb: 250,
      total: 110_000,
    });
    expect(row.values).toMatchObject({ keptBefore: null, cacheBefore: null, totalBefore: null });
    const sqlite = sizeRow({ backend: 'sqlite', ...base, cache: 90_000 });
    expect(sqlite.label).toBe('sqlite');
    expect(sqlite.values).toMatchObject({ cache: 90_000, keptBefore: 418_304 });
  });

  it('says a backend that did not answer, every figure left empty', () => {
    const row = sizeRow({ backend: 'postgresql', unanswered: 'no PostgreSQL answers at postgres://x' });
    expect(row.label).toBe('postgresql (not answering)');
    expect(Object.values(row.values).every((v) => v === null)).toBe(true);
    expect(Object.keys(row.values)).toContain('kept');
  });

  it('finds PostgreSQL at DATABASE_URL, else the local test database', () => {
    expect(benchDatabaseUrl({ DATABASE_URL: 'postgres://u@db:5433/x' })).toBe('postgres://u@db:5433/x');
    expect(benchDatabaseUrl({})).toBe('postgres://postgres@127.0.0.1:5432/test');
  });
});

describe('case 7: what bounds the ceiling', () => {
  const quiet = { cores: 2, threads: 2, load: 0.2 };
  it('names the cores when the server and the simulated web fill them', () => {
    expect(whatBounds({ ...quiet, serverCores: 1.45, simCores: 0.4 })).toMatch(/^the machine's 2 cores/);
  });
  it('names the search threads when they are full and the cores are not', () => {
    expect(whatBounds({ ...quiet, threads: 1, serverCores: 1.05, simCores: 0.45 })).toBe(
      "the server's 1 search thread(s)",
    );
  });
  it('says when neither is full, and when other work ran', () => {
    expect(whatBounds({ ...quiet, serverCores: 0.6, simCores: 0.2 })).toMatch(/neither the cores/);
    expect(whatBounds({ ...quiet, load: 6, serverCores: 0.6, simCores: 0.2 })).toMatch(/other work/);
  });
});

describe('platform sets', () => {
  it('defends a seeded share of the default search, half by handshake and half by challenge, the halves apart', () => {
    const named = (mix: 'none' | 'handshake' | 'challenge' | 'both') =>
      new Map(
        loadPlatformSet(`defended-${mix}`, 1)
          .catalogue.platforms.filter((p) => p.transport !== 'http')
          .map((p) => [p.id, p.transport]),
      );
    const both = named('both');
    const searched = loadPlatformSet('defended-none', 1).searched.length;
    expect(both.size).toBe(Math.round(DEFENDED_SHARE * searched));
    const handshake = named('handshake');
    const challenge = named('challenge');
    expect([...handshake.values()].every((t) => t === 'impersonate')).toBe(true);
    expect([...challenge.values()].every((t) => t === 'browser')).toBe(true);
    expect(Math.abs(handshake.size - challenge.size)).toBeLessThanOrEqual(1);
    expect(new Map([...handshake, ...challenge])).toEqual(both);
    expect(named('none').size).toBe(0);
    // The simulated web defends exactly those: a site of its own each, the handshake's refused
    // by a block page or a TLS alert (both met).
    const { routes } = emulatePlatformSet(loadPlatformSet('defended-both', 1), 'zero', 1);
    const refused = routes.filter((r) => r.defence === 'handshake' || r.defence === 'handshake-alert');
    expect(refused).toHaveLength(handshake.size);
    expect(new Set(refused.map((r) => r.defence))).toEqual(new Set(['handshake', 'handshake-alert']));
    expect(routes.filter((r) => r.defence === 'challenge')).toHaveLength(challenge.size);
    expect(() => loadPlatformSet('defended-most' as 'defended-none', 1)).toThrow(/no defended set/);
  });

  it('keeps every site rate limit when a synthetic set answers some hosts compressed', () => {
    const set = loadPlatformSet('synthetic-100', 1);
    expect(set.catalogue.platforms.some((p) => p.tags.includes('gzip'))).toBe(true);
    const { routes } = emulatePlatformSet(set, 'zero', 1);
    const limited = routes.filter((r) => r.limit !== undefined);
    // siteLimit seeds a limit for every synthetic site; wrapping for gzip must not drop them.
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.length).toBe(routes.filter((r) => typeof r.host === 'string').length);
  });

  it('keeps the busiest origin whole in the budget-bound subset, and only platforms that answer in time', () => {
    const searched = loadPlatformSet('builtin', 1).searched;
    const budget = { perSecond: 4, burst: 2 };
    const options = { size: 100, maxLatencyMs: 3_000, profile: 'realistic' as const, seed: 1, budget };
    const subset = budgetBoundSubset(searched, options);
    const busiest = sustainedRate(searched, { identities: 1, budget });
    expect(subset).toHaveLength(100);
    // The same origin paces it, asked as often a search: the same sustained rate.
    expect(sustainedRate(subset, { identities: 1, budget })).toEqual(busiest);
    expect(subset.filter((p) => budgetOrigin(p) === busiest.origin)).toHaveLength(busiest.platforms);
    const others = subset.filter((p) => budgetOrigin(p) !== busiest.origin);
    for (const p of others) {
      const l = latencyOf('realistic', 1, p);
      expect(l !== 'hang' && l <= 3_000).toBe(true);
    }
    // The first such platforms, in the order of the search.
    const order = new Map(searched.map((p, i) => [p, i]));
    expect(subset.map((p) => order.get(p))).toEqual(
      [...subset.map((p) => order.get(p)!)].sort((a, b) => a - b),
    );
    const skipped = searched
      .slice(0, order.get(others[others.length - 1]!)!)
      .filter((p) => !subset.includes(p) && budgetOrigin(p) !== busiest.origin);
    expect(skipped.length).toBeGreaterThan(0);
    for (const p of skipped) {
      const l = latencyOf('realistic', 1, p);
      expect(l === 'hang' || l > 3_000).toBe(true);
    }
  });

  it('counts the check-slot time of a search, the timeout for each platform that never answers', () => {
    const searched = loadPlatformSet('builtin', 1).searched;
    const long = physicalLimit(searched, 'realistic', 1, 10_000);
    const short = physicalLimit(searched, 'realistic', 1, 5_000);
    expect(long.hanging).toBeGreaterThan(0);
    // Every platform that never answers holds its slot the whole timeout; slower ones are cut at it too.
    expect(long.slotMs - short.slotMs).toBeGreaterThanOrEqual(long.hanging * 5_000);
    const answered = searched.filter((p) => latencyOf('realistic', 1, p) !== 'hang');
    const sum = answered.reduce((n, p) => n + Math.min(latencyOf('realistic', 1, p) as number, 10_000), 0);
    expect(long.slotMs).toBe(sum + long.hanging * 10_000);
  });
});

describe('case 9: the outcome cache rows mirrored into PostgreSQL', () => {
  const miss: Outcome = {
    platform: 'GitHub',
    platformId: 'github',
    category: 'coding',
    url: 'https://github.com/bob',
    status: 'miss',
    responseTime: 187,
    evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404, bytesRead: 120 },
  };

  it("adds every row to both stores' cache rows, each read back against the records", async () => {
    const records = createStore({ kind: 'sqlite', path: ':memory:' });
    const cache = createStore({ kind: 'sqlite', path: ':memory:' });
    try {
      const split = splitStore(records, alsoCachingIn(cache, records));
      const [cached] = await putCached(split, 'bob', miss, 2_000, 1_000);
      expect(await cache.cacheRowsOf('bob', 1_500)).toHaveLength(1);
      expect(await records.cacheRowsOf('bob', 1_500)).toHaveLength(1);
      // The split store reads the rows in `cache`; the records store alone, its own copy of them.
      expect((await split.getCachedOutcomes('bob', ['github'], 1_500)).get('github')).toEqual(cached);
      expect((await records.getCachedOutcomes('bob', ['github'], 1_500)).get('github')).toEqual(cached);
    } finally {
      await records.close();
      await cache.close();
    }
  });
});
