import { describe, expect, it } from 'vitest';
import { EstimateCalibration } from './estimate-calibration.js';

describe('EstimateCalibration', () => {
  it('starts neutral and leaves exact estimates alone', () => {
    const c = new EstimateCalibration();
    expect(c.apply(12)).toBe(12);
    for (let i = 0; i < 10; i++) c.observe(12, 12_000);
    expect(c.factor).toBeCloseTo(1, 10);
  });

  it('converges on a deployment that runs steadily slower than the model says', () => {
    const c = new EstimateCalibration();
    // The model says 10 s; searches take 15 s. Each shown estimate is the calibrated one.
    for (let i = 0; i < 30; i++) c.observe(c.apply(10), 15_000);
    expect(c.apply(10)).toBeGreaterThanOrEqual(14);
    expect(c.apply(10)).toBeLessThanOrEqual(16);
  });

  it('moves only part way on one odd search, stays within its bound, and ignores nonsense', () => {
    const c = new EstimateCalibration({ step: 0.25, bound: 4 });
    c.observe(10, 40_000);
    expect(c.factor).toBeCloseTo(4 ** 0.25, 5);
    for (let i = 0; i < 100; i++) c.observe(1, 1_000_000);
    expect(c.factor).toBeCloseTo(4, 5);
    for (let i = 0; i < 100; i++) c.observe(100, 1);
    expect(c.factor).toBeCloseTo(1 / 4, 5);
    const before = c.factor;
    c.observe(0, 5_000);
    c.observe(5, Number.NaN);
    c.observe(5, -1);
    expect(c.factor).toBe(before);
    expect(new EstimateCalibration().apply(0)).toBe(1);
  });

  it('does not learn from a search estimated while most of its platforms were never measured', () => {
    const c = new EstimateCalibration();
    // A new deployment's first search: nothing measured, every connection a first handshake.
    c.estimated('first', 1_000, 1_000);
    c.observe(12, 60_000, 'first');
    expect(c.factor).toBe(1);
    // A few never measured among many measured: learnt from.
    c.estimated('warm', 1_000, 20);
    c.observe(10, 20_000, 'warm');
    expect(c.factor).toBeGreaterThan(1);
    // Seen finished again: still not learnt from. One started elsewhere (no record here) is.
    const after = c.factor;
    c.observe(12, 60_000, 'first');
    expect(c.factor).toBe(after);
    c.observe(10, 20_000, 'another process');
    expect(c.factor).toBeGreaterThan(after);
  });
});
