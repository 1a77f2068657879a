import { describe, expect, it } from 'vitest';
import { capacity } from '../../bench/capacity.js';
import { redisCpuMsOf } from '../../bench/cluster.js';
import { busyCores } from '../../bench/machine-usage.js';
import { metricSum } from '../../bench/prometheus.js';
import { perMinuteWithin } from '../../bench/stats.js';

describe('capacity', () => {
  const oneByOne = {
    budgetsPerHour: 1_600,
    workers: 1,
    running: 4,
    searchMs: 2_323,
    concurrency: 512,
    checkSlotMs: 44_800,
    cores: 2,
    cpuMsPerSearch: 320,
  };

  it('predicts the smallest of budgets, running slots, check slots and CPU, a minute, and names it', () => {
    const c = capacity(oneByOne);
    expect(c.budgets).toBeCloseTo(26.67, 2);
    // 1 worker x 4 running ÷ 2.323 s.
    expect(c.slots).toBeCloseTo(103.3, 1);
    // 512 check slots ÷ 44.8 slot-seconds a search.
    expect(c.checkSlots).toBeCloseTo(685.7, 1);
    // 2 cores ÷ 0.32 CPU-s a search.
    expect(c.cpu).toBe(375);
    expect(c).toMatchObject({ bound: 'request budgets', perMinute: c.budgets });
  });

  it('is bound by the running slots when every search waits out a timeout', () => {
    // A platform that never answers: 4 running ÷ 10 s = 24 a minute, under the budgets' 26.7.
    expect(capacity({ ...oneByOne, searchMs: 10_000 })).toMatchObject({
      bound: 'running slots',
      perMinute: 24,
    });
  });

  it('is bound by the check slots when a search’s checks hold them long, and by CPU when a search costs more', () => {
    // 2 workers x 8, 4 identities: budgets 106.7, running slots 96; 2 x 512 slots ÷ 960 slot-s = 64.
    const twoByTwo = {
      ...oneByOne,
      budgetsPerHour: 6_400,
      workers: 2,
      running: 8,
      searchMs: 10_000,
      checkSlotMs: 960_000,
      cpuMsPerSearch: 1_500,
    };
    expect(capacity(twoByTwo)).toMatchObject({ bound: 'check slots', perMinute: 64 });
    // 2 cores ÷ 2.5 CPU-s = 48.
    expect(capacity({ ...twoByTwo, cpuMsPerSearch: 2_500 })).toMatchObject({ bound: 'CPU', perMinute: 48 });
  });

  it('leaves CPU out when it was not measured', () => {
    const c = capacity({ ...oneByOne, cpuMsPerSearch: null });
    expect(c.cpu).toBeNull();
    expect(c.bound).toBe('request budgets');
  });
});

describe('perMinuteWithin', () => {
  it('counts the times in [from, to) over the window', () => {
    // 3 of them in a 30 s window: 6 a minute; the one at `to` belongs to the next window.
    expect(perMinuteWithin([999, 1_000, 10_000, 30_999, 31_000], 1_000, 31_000)).toBe(6);
    expect(perMinuteWithin([], 0, 60_000)).toBe(0);
    expect(perMinuteWithin([5], 10, 10)).toBeNaN();
  });
});

describe('metricSum', () => {
  const text = [
    '# HELP userscout_checks_total Platform checks finished, by outcome status and reason',
    '# TYPE userscout_checks_total counter',
    'userscout_checks_total{status="hit",reason=""} 3',
    'userscout_checks_total{status="unknown",reason="budget_exhausted"} 5',
    'userscout_checks_total{status="unknown",reason="rate_limited"} 2',
    'userscout_checks_total_other{status="unknown",reason="budget_exhausted"} 100',
    'userscout_queue_depth 7',
  ].join('\n');

  it('sums a metric’s samples, those with the labels given when there are some', () => {
    expect(metricSum(text, 'userscout_checks_total')).toBe(10);
    expect(metricSum(text, 'userscout_checks_total', { status: 'unknown' })).toBe(7);
    expect(metricSum(text, 'userscout_checks_total', { status: 'unknown', reason: 'budget_exhausted' })).toBe(
      5,
    );
    expect(metricSum(text, 'userscout_queue_depth')).toBe(7);
    expect(metricSum(text, 'userscout_missing')).toBe(0);
  });
});

describe('machine and Redis CPU', () => {
  it('reads Redis’s user and system CPU from INFO', () => {
    const info =
      '# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:9.000000\r\n';
    expect(redisCpuMsOf(info)).toBe(3_750);
  });

  it('counts the cores busy between two readings of the machine’s times', () => {
    // 2 cores over 10 s: 20 s of core time, 5 s of it busy.
    expect(busyCores({ busyMs: 1_000, idleMs: 4_000 }, { busyMs: 6_000, idleMs: 19_000 }, 2)).toBe(0.5);
    expect(busyCores({ busyMs: 1, idleMs: 1 }, { busyMs: 1, idleMs: 1 }, 2)).toBe(0);
  });
});
