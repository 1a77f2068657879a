import { describe, expect, it } from 'vitest';
import { formatDuration, progressView } from '../../src/web/progress.js';

describe('progressView', () => {
  const base = { startedAt: 1_000_000, estimatedSeconds: 30 };

  it('uses the service estimate until a tenth is checked', () => {
    const view = progressView({
      ...base,
      progress: { checked: 5, total: 100, hits: 0 },
      now: base.startedAt + 10_000,
    });
    expect(view).toEqual({ percent: 5, elapsedSeconds: 10, remainingSeconds: 20 });
  });

  it('then extrapolates from the pace so far', () => {
    const view = progressView({
      ...base,
      progress: { checked: 50, total: 100, hits: 3 },
      now: base.startedAt + 10_000,
    });
    expect(view).toEqual({ percent: 50, elapsedSeconds: 10, remainingSeconds: 10 });
  });

  it('never goes below zero when the estimate is exceeded', () => {
    const view = progressView({
      ...base,
      progress: { checked: 0, total: 100, hits: 0 },
      now: base.startedAt + 60_000,
    });
    expect(view.remainingSeconds).toBe(0);
  });

  it('is 100% with the real duration once finished', () => {
    const view = progressView({
      ...base,
      progress: { checked: 98, total: 100, hits: 1 },
      now: base.startedAt + 90_000,
      finishedAt: base.startedAt + 12_400,
    });
    expect(view).toEqual({ percent: 100, elapsedSeconds: 12, remainingSeconds: undefined });
  });

  it('copes with an empty search and odd counts', () => {
    expect(
      progressView({ ...base, progress: { checked: 0, total: 0, hits: 0 }, now: base.startedAt }).percent,
    ).toBe(0);
    expect(
      progressView({ ...base, progress: { checked: 120, total: 100, hits: 0 }, now: base.startedAt }).percent,
    ).toBe(100);
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
