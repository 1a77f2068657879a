/**
 * CPU and memory of a process, as reported by the process itself (children
 * answer a `usage` message with this), the difference between two readings,
 * and `measure()`: what one piece of work cost between two readings.
 */

export interface ProcessUsage {
  /** User CPU since the process started (µs). */
  readonly userUs: number;
  /** System CPU since the process started (µs). */
  readonly systemUs: number;
  /** Peak resident set size since the process started (bytes). */
  readonly maxRssBytes: number;
  /** Resident set size now (bytes). */
  readonly rssBytes: number;
  /** Wall clock of the reading (ms, performance.timeOrigin based). */
  readonly at: number;
}

export function readUsage(): ProcessUsage {
  const r = process.resourceUsage();
  return {
    userUs: r.userCPUTime,
    systemUs: r.systemCPUTime,
    maxRssBytes: r.maxRSS * 1024,
    rssBytes: process.memoryUsage.rss(),
    at: performance.timeOrigin + performance.now(),
  };
}

export interface UsageDelta {
  /** User + system CPU between the readings (ms). */
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Share of one core used between the readings (1 = one core busy). */
  readonly cores: number;
  readonly maxRssMb: number;
}

export interface Measured<T> {
  readonly result: T;
  readonly usage: UsageDelta;
  /** The reading before the work (its rssBytes is the base memory). */
  readonly before: ProcessUsage;
}

/**
 * Runs `work` between two readings of `usage` (this process's, a child's, or
 * a sum over several processes): its result, and what it cost.
 */
export async function measure<T>(
  usage: () => ProcessUsage | Promise<ProcessUsage>,
  work: () => Promise<T>,
): Promise<Measured<T>> {
  const before = await usage();
  const result = await work();
  const after = await usage();
  return { result, usage: usageDelta(before, after), before };
}

export function usageDelta(before: ProcessUsage, after: ProcessUsage): UsageDelta {
  const cpuMs = (after.userUs - before.userUs + after.systemUs - before.systemUs) / 1000;
  const wallMs = after.at - before.at;
  return {
    cpuMs,
    wallMs,
    cores: wallMs > 0 ? cpuMs / wallMs : 0,
    maxRssMb: after.maxRssBytes / 1_048_576,
  };
}
