/**
 * Summaries of measured samples. Pure.
 */

/** The q-th quantile (0..1) of the samples, nearest-rank; undefined when there are none. */
export function percentile(samples: readonly number[], q: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export interface Distribution {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export function distribution(samples: readonly number[]): Distribution | undefined {
  if (samples.length === 0) return undefined;
  return {
    count: samples.length,
    p50: percentile(samples, 0.5)!,
    p95: percentile(samples, 0.95)!,
    p99: percentile(samples, 0.99)!,
    max: Math.max(...samples),
  };
}

/**
 * The exponent k in cost ∝ size^k between two measurements: about 1 is linear,
 * 0 flat, above 1 worse than linear.
 */
export function growthExponent(size1: number, cost1: number, size2: number, cost2: number): number {
  if (size1 <= 0 || size2 <= 0 || cost1 <= 0 || cost2 <= 0 || size1 === size2) return Number.NaN;
  return Math.log(cost2 / cost1) / Math.log(size2 / size1);
}

/**
 * Events a minute within [from, to): how many of `times` (ms) fall in the
 * window, over its length. A steady state's rate, when the window starts after
 * a warm-up and the load is kept up until it ends.
 */
export function perMinuteWithin(times: readonly number[], from: number, to: number): number {
  if (to <= from) return Number.NaN;
  return (times.filter((t) => t >= from && t < to).length * 60_000) / (to - from);
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
