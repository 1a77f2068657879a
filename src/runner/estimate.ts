/**
 * How long a search is expected to take, in seconds, from measured platform
 * latencies and the current queue. Pure.
 */
export interface EstimateInput {
  /** Recent response time per platform of the search (ms); undefined when never measured. */
  readonly latenciesMs: readonly (number | undefined)[];
  /** Used for platforms never measured. */
  readonly defaultLatencyMs: number;
  /** No check takes longer than this. */
  readonly timeoutMs: number;
  /** Checks in flight at once. */
  readonly concurrency: number;
  /** Searches waiting before this one, and how many run at once. */
  readonly queuedAhead: number;
  readonly maxRunning: number;
}

export function estimateSeconds(input: EstimateInput): number {
  const latencies = input.latenciesMs.map((l) => Math.min(l ?? input.defaultLatencyMs, input.timeoutMs));
  if (latencies.length === 0) return 1;
  const sorted = [...latencies].sort((a, b) => a - b);
  const slowest = sorted[sorted.length - 1]!;
  const median = sorted[Math.floor(sorted.length / 2)]!;
  // Checks run in waves when there are more platforms than slots.
  const waves = Math.ceil(latencies.length / Math.max(1, input.concurrency));
  const searchMs = slowest + (waves - 1) * median;
  const queueMs = Math.ceil(input.queuedAhead / Math.max(1, input.maxRunning)) * searchMs;
  return Math.max(1, Math.ceil((searchMs + queueMs) / 1000));
}
