/**
 * A deployment's predicted searches a minute, sustained: the smallest of the
 * capacity model's bounds (docs/deployment.md) that the benchmark can state
 * for one row, and which of them it is. Pure.
 */

/** The bounds of docs/deployment.md's capacity model a row is predicted by (Redis aside). */
export type CapacityBound = 'request budgets' | 'running slots' | 'check slots' | 'CPU';

export interface Capacity {
  /** What the request budgets sustain (politeness.ts's sustainedRate), searches a minute. */
  readonly budgets: number;
  /** What the running slots allow: workers x running ÷ the shortest a search can take. */
  readonly slots: number;
  /** What the check slots allow: workers x concurrency ÷ the slot time a search's checks hold. */
  readonly checkSlots: number;
  /** The machine's cores ÷ the CPU a search costs, every process that serves it counted; null when not measured. */
  readonly cpu: number | null;
  /** The smallest of them, and which it is. */
  readonly perMinute: number;
  readonly bound: CapacityBound;
}

export function capacity(input: {
  /** Searches an hour the request budgets sustain. */
  readonly budgetsPerHour: number;
  readonly workers: number;
  /** Searches each worker runs at once. */
  readonly running: number;
  /** The shortest a search can take: its slowest platform, or the timeout when one never answers (ms). */
  readonly searchMs: number;
  /** Checks each worker runs at once, over all its searches (`concurrency`). */
  readonly concurrency: number;
  /** The check-slot time a search holds: the sum of its platforms' latencies, the timeout for one that never answers (ms). */
  readonly checkSlotMs: number;
  readonly cores: number;
  /** CPU a search costs (ms): the API process, the workers, the simulated web and Redis. */
  readonly cpuMsPerSearch: number | null;
}): Capacity {
  const budgets = input.budgetsPerHour / 60;
  const slots =
    input.searchMs > 0 ? (input.workers * input.running * 60_000) / input.searchMs : Number.POSITIVE_INFINITY;
  const checkSlots =
    input.checkSlotMs > 0
      ? (input.workers * input.concurrency * 60_000) / input.checkSlotMs
      : Number.POSITIVE_INFINITY;
  const cpu =
    input.cpuMsPerSearch !== null && input.cpuMsPerSearch > 0
      ? (input.cores * 60_000) / input.cpuMsPerSearch
      : null;
  const bounds: [CapacityBound, number][] = [
    ['request budgets', budgets],
    ['running slots', slots],
    ['check slots', checkSlots],
    ...(cpu === null ? [] : [['CPU', cpu] as [CapacityBound, number]]),
  ];
  const [bound, perMinute] = bounds.reduce((a, b) => (b[1] < a[1] ? b : a));
  return { budgets, slots, checkSlots, cpu, perMinute, bound };
}
