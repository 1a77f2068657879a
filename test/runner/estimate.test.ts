import { describe, expect, it } from 'vitest';
import { estimateSeconds } from '../../src/runner/estimate.js';

const budget = { perSecond: 4, burst: 4 };
/** One platform per origin, as most of the catalogue is. */
const spread = (n: number, limit = budget) => Array.from({ length: n }, () => ({ platforms: 1, limit }));
const base = {
  defaultLatencyMs: 1_000,
  timeoutMs: 10_000,
  concurrency: 512,
  identities: 1,
  running: 0,
  queuedAhead: 0,
  maxRunning: 8,
};

describe('estimateSeconds', () => {
  it('estimates a cold catalogue at about the timeout: one of hundreds never measured is slow', () => {
    const cold = estimateSeconds({ ...base, latenciesMs: Array(500).fill(undefined), origins: spread(500) });
    expect(cold).toBeGreaterThanOrEqual(9);
    expect(cold).toBeLessThanOrEqual(11);
  });

  it('estimates a warm set at about its slowest', () => {
    const latenciesMs = Array.from({ length: 300 }, (_, i) => 100 + i * 10); // slowest 3.09 s
    expect(estimateSeconds({ ...base, latenciesMs, origins: spread(300) })).toBe(4);
    // One platform never measured among them adds little.
    expect(estimateSeconds({ ...base, latenciesMs: [...latenciesMs, undefined], origins: spread(301) })).toBe(
      4,
    );
  });

  it('lets a measured search last its slowest platform or its work over the slots, not waves on top of the slowest', () => {
    // Slowest first: the ten 9 s platforms start at once, the 990 quick ones fill the other slots meanwhile.
    const latenciesMs = [...Array(10).fill(9_000), ...Array(990).fill(500)];
    const narrow = { ...base, concurrency: 100, origins: spread(1_000) };
    expect(estimateSeconds({ ...narrow, latenciesMs })).toBe(9);
    // When the work outlasts the slowest: 1,000 answers of 1 s through 100 slots take 10 s.
    expect(estimateSeconds({ ...narrow, latenciesMs: Array(1_000).fill(1_000) })).toBe(10);
    // A platform never measured may be the slow one: it starts after the 300 measured slower than
    // a typical answer have had their three waves of 100.
    const slowAhead = Array(300).fill(2_000);
    expect(estimateSeconds({ ...narrow, latenciesMs: slowAhead, origins: spread(300) })).toBe(6);
    expect(
      estimateSeconds({ ...narrow, latenciesMs: [...slowAhead, undefined], origins: spread(301) }),
    ).toBeGreaterThanOrEqual(8);
    // A few never measured behind a thousand slower ones, and one measured at the timeout: that one
    // started first and ends last; the unmeasured start in the second wave and likely end long before.
    const warmCatalogue = [10_000, ...Array(1_000).fill(2_000), ...Array(6).fill(undefined)];
    expect(estimateSeconds({ ...base, latenciesMs: warmCatalogue, origins: spread(1_007) })).toBe(10);
    // Behind quicker ones it goes out in the first wave: the work over the slots binds (4.96 s).
    expect(estimateSeconds({ ...narrow, latenciesMs: [...Array(990).fill(500), undefined] })).toBe(5);
  });

  it('counts the searches running and queued ahead on the busiest origin’s budget', () => {
    // 7 platforms on one origin at 4 a second: 50 searches send it 350 requests.
    const one = { latenciesMs: Array(7).fill(200), origins: [{ platforms: 7, limit: budget }] };
    expect(estimateSeconds({ ...base, ...one })).toBe(1);
    const fifty = estimateSeconds({ ...base, ...one, running: 8, queuedAhead: 41 });
    expect(fifty).toBeGreaterThanOrEqual(87);
    // With 8 running slots, the queue alone would say 7 rounds of a 0.2 s search.
    expect(fifty).toBeLessThanOrEqual(90);
    // Two egress identities halve it.
    expect(
      estimateSeconds({ ...base, ...one, running: 8, queuedAhead: 41, identities: 2 }),
    ).toBeLessThanOrEqual(45);
    // So for a cold catalogue too.
    const cold = { latenciesMs: Array(7).fill(undefined), origins: [{ platforms: 7, limit: budget }] };
    expect(estimateSeconds({ ...base, ...cold, running: 8, queuedAhead: 41 })).toBeGreaterThanOrEqual(87);
  });

  it('reads what is not sent yet at an origin from the scheduler when it can, instead of guessing from the searches running', () => {
    const one = { latenciesMs: Array(7).fill(200), origins: [{ platforms: 7, limit: budget }] };
    const guessed = estimateSeconds({ ...base, ...one, running: 8 });
    // 8 running searches, but the scheduler has sent most of their requests: 4 left.
    const read = estimateSeconds({
      ...base,
      ...one,
      running: 8,
      origins: [{ platforms: 7, limit: budget, unsent: 4 }],
    });
    // 4 + 7 requests, burst 4, at 4 a second: under 2 s (and a typical answer), where the
    // guess of 8 x 7 ahead said about 15.
    expect(read).toBeLessThanOrEqual(2);
    expect(guessed).toBeGreaterThanOrEqual(14);
  });

  it('waits for a running slot when the queue is ahead', () => {
    // Budgets loose enough that 25 searches' requests go at once.
    const warm = {
      latenciesMs: Array(100).fill(2_000),
      origins: spread(100, { perSecond: 100, burst: 100 }),
    };
    expect(estimateSeconds({ ...base, ...warm })).toBe(2);
    // 16 queued ahead of 8 slots: two rounds before this one runs.
    expect(estimateSeconds({ ...base, ...warm, running: 8, queuedAhead: 16 })).toBe(6);
    // At the default budget, the 25 searches' requests to each origin take longer than the rounds.
    expect(estimateSeconds({ ...base, ...warm, origins: spread(100), running: 8, queuedAhead: 16 })).toBe(8);
  });

  it('answers at least a second', () => {
    expect(estimateSeconds({ ...base, latenciesMs: [], origins: [] })).toBe(1);
    expect(estimateSeconds({ ...base, latenciesMs: [5], origins: spread(1) })).toBe(1);
  });

  it("counts a search's browser checks through the deployment's few browser slots, shared with the searches ahead", () => {
    const latenciesMs = Array(100).fill(500);
    const plain = { ...base, latenciesMs, origins: spread(100) };
    expect(estimateSeconds(plain)).toBe(1);
    // 20 browser checks of 3 s through 2 slots: 30 s, whatever the request slots.
    const browser = { latenciesMs: Array(20).fill(3_000), slots: 2 };
    expect(estimateSeconds({ ...plain, browser })).toBe(30);
    // Never measured: a typical answer each (1 s); with one search running, twice the work.
    const unmeasured = { latenciesMs: Array(20).fill(undefined), slots: 2 };
    expect(estimateSeconds({ ...plain, browser: unmeasured })).toBe(10);
    expect(estimateSeconds({ ...plain, running: 1, browser: unmeasured })).toBe(20);
    // None: no bound.
    expect(estimateSeconds({ ...plain, browser: { latenciesMs: [], slots: 2 } })).toBe(1);
  });
});
