import { describe, expect, it } from 'vitest';
import { addSample, formatDuration, type ProgressSample, progressView } from '../../src/web/progress.js';

const START = 1_000_000;

/**
 * A search as it really goes: each platform's finishing time (ms after the start).
 * Most answer within a second, some within a few, the slowest only at the timeout.
 */
function curve(scale = 1): number[] {
  const times: number[] = [];
  for (let i = 0; i < 800; i++) times.push((i / 800) * 1000 * scale);
  for (let i = 0; i < 150; i++) times.push((1000 + (i / 150) * 3000) * scale);
  for (let i = 0; i < 50; i++) times.push((9500 + (i / 50) * 500) * scale);
  return times.sort((a, b) => a - b);
}

/** What the page would show at `t` ms into the search, having sampled the progress every 250 ms. */
function viewAt(times: readonly number[], t: number, estimatedSeconds: number) {
  const checkedBy = (ms: number) => times.filter((x) => x <= ms).length;
  let samples: ProgressSample[] = [];
  for (let at = 250; at <= t; at += 250)
    samples = addSample(samples, { at: START + at, checked: checkedBy(at) });
  return progressView({
    progress: { checked: checkedBy(t), total: times.length, hits: 0 },
    startedAt: START,
    now: START + t,
    estimatedSeconds,
    samples,
  });
}

describe('progressView', () => {
  it('on a warm service, stays near the true time left though most platforms answer in the first second', () => {
    const times = curve();
    const end = times.at(-1)!;
    for (let t = 500; t < end; t += 500) {
      const view = viewAt(times, t, 11);
      const truth = (end - t) / 1000;
      expect(view.remainingText).not.toMatch(/about 0 s/);
      if (view.remainingSeconds !== undefined) {
        // Never off by more than a factor of two, or two seconds near the end.
        expect(view.remainingSeconds, `at ${t} ms`).toBeGreaterThanOrEqual(Math.min(truth / 2, truth - 2));
        expect(view.remainingSeconds, `at ${t} ms`).toBeLessThanOrEqual(Math.max(truth * 2, truth + 2));
      }
    }
    // At 2 s, 95% are checked: the average pace would promise the end in a tenth of a second.
    const at2s = viewAt(times, 2000, 11);
    expect(at2s.percent).toBeGreaterThanOrEqual(85);
    expect(at2s.remainingSeconds).toBeGreaterThanOrEqual(5);
  });

  it('uses the pace once the start estimate is overrun, never "about 0 s"', () => {
    // Under load the same search takes 4.3 times as long as the 3 s estimated.
    const times = curve(4.3);
    const end = times.at(-1)!;
    for (let t = 3500; t < end; t += 500) {
      const view = viewAt(times, t, 3);
      expect(view.remainingText, `at ${t} ms`).not.toMatch(/about 0 s/);
      expect(view.remainingText).toMatch(/^(about \d|almost done|estimating)/);
    }
    // Still slow while the fast ones are being checked: far from done.
    const early = viewAt(times, 3500, 3);
    expect(early.remainingSeconds).toBeGreaterThanOrEqual(1);
  });

  it('at 2% with the estimate passed, extrapolates the pace instead of saying 0 s', () => {
    const samples = [
      { at: START + 1000, checked: 0 },
      { at: START + 6000, checked: 20 },
    ];
    const view = progressView({
      progress: { checked: 20, total: 1000, hits: 0 },
      startedAt: START,
      now: START + 6000,
      estimatedSeconds: 3,
      samples,
    });
    expect(view.percent).toBe(2);
    // 20 checked in the last 5 s: 980 more take about 245 s.
    expect(view.remainingSeconds).toBe(245);
    expect(view.remainingText).toBe('about 4 min 05 s');
  });

  it('says "almost done" or "estimating…" when nothing moved lately and the estimate has passed', () => {
    const stalled = (checked: number) =>
      progressView({
        progress: { checked, total: 100, hits: 0 },
        startedAt: START,
        now: START + 20_000,
        estimatedSeconds: 10,
        samples: [{ at: START + 9000, checked }],
      });
    expect(stalled(97)).toMatchObject({ remainingSeconds: undefined, remainingText: 'almost done' });
    expect(stalled(30)).toMatchObject({ remainingSeconds: undefined, remainingText: 'estimating…' });
    // Nothing checked at all and the estimate passed.
    expect(
      progressView({
        progress: { checked: 0, total: 100, hits: 0 },
        startedAt: START,
        now: START + 60_000,
        estimatedSeconds: 30,
      }).remainingText,
    ).toBe('estimating…');
  });

  it('uses the service estimate before anything is checked', () => {
    const view = progressView({
      progress: { checked: 0, total: 100, hits: 0 },
      startedAt: START,
      now: START + 10_000,
      estimatedSeconds: 30,
    });
    expect(view).toEqual({
      percent: 0,
      elapsedSeconds: 10,
      remainingSeconds: 20,
      remainingText: 'about 20 s',
    });
  });

  it('blends the pace in as the estimated time passes', () => {
    // Half the estimated time gone, half the platforms checked at a steady pace: both say 10 s.
    const view = progressView({
      progress: { checked: 50, total: 100, hits: 3 },
      startedAt: START,
      now: START + 10_000,
      estimatedSeconds: 20,
    });
    expect(view).toMatchObject({ percent: 50, elapsedSeconds: 10, remainingSeconds: 10 });
  });

  it('is 100% with the real duration once finished', () => {
    const view = progressView({
      startedAt: START,
      estimatedSeconds: 30,
      progress: { checked: 98, total: 100, hits: 1 },
      now: START + 90_000,
      finishedAt: START + 12_400,
    });
    expect(view).toEqual({
      percent: 100,
      elapsedSeconds: 12,
      remainingSeconds: undefined,
      remainingText: 'done',
    });
  });

  it('copes with an empty search and odd counts', () => {
    const base = { startedAt: START, estimatedSeconds: 30 };
    expect(progressView({ ...base, progress: { checked: 0, total: 0, hits: 0 }, now: START }).percent).toBe(
      0,
    );
    expect(
      progressView({ ...base, progress: { checked: 120, total: 100, hits: 0 }, now: START }).percent,
    ).toBe(100);
  });
});

describe('addSample', () => {
  it('keeps the last minute only', () => {
    let samples: ProgressSample[] = [];
    for (let s = 0; s <= 120; s += 10) samples = addSample(samples, { at: s * 1000, checked: s });
    expect(samples.map((x) => x.checked)).toEqual([60, 70, 80, 90, 100, 110, 120]);
  });
});

describe('formatDuration', () => {
  it('reads naturally', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
    expect(formatDuration(-5)).toBe('0 s');
  });
});
