/**
 * A process's CPU by thread, from Linux's /proc/<pid>/task/<tid>/stat, grouped
 * by what each thread does in the server: pure parsing and grouping over the
 * text the caller read (bench/server-child.ts reads it).
 */

/** The groups a server's threads fall into. */
export type ThreadGroup = 'http' | 'search' | 'v8' | 'pool' | 'other';

/** CPU (user + system, ms) per group. */
export type ThreadCpuMs = Readonly<Record<ThreadGroup, number>>;

/** One thread as /proc shows it. */
export interface ThreadSample {
  readonly tid: number;
  /** Its `comm` (Node 20 names every thread `node`; later versions name libuv's and V8's). */
  readonly name: string;
  /** User + system CPU (clock ticks). */
  readonly cpuTicks: number;
  /** When it started (clock ticks after boot). */
  readonly startTicks: number;
}

/**
 * utime + stime and starttime of a `stat` line (proc(5): fields 14, 15 and 22).
 * The name, field 2, may hold spaces and parentheses: fields are counted after its last ')'.
 */
export function parseTaskStat(stat: string): { cpuTicks: number; startTicks: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state).
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const startTicks = Number(fields[19]);
  if (![utime, stime, startTicks].every(Number.isFinite))
    throw new Error(`not a /proc stat line: ${stat.slice(0, 80)}`);
  return { cpuTicks: utime + stime, startTicks };
}

/** Node's V8 platform threads: `--v8-pool-size=N` in the flags, else its default. */
export function v8PoolSize(flags: readonly string[], byDefault = 4): number {
  for (const flag of flags.toReversed()) {
    const match = /^--v8-pool-size=(\d+)$/.exec(flag);
    if (match) return Number(match[1]);
  }
  return byDefault;
}

export interface GroupOptions {
  /** The process's id: its main thread's tid, where the HTTP server runs. */
  readonly pid: number;
  /** The threads alive before the service started: any other one is a search thread. */
  readonly beforeService: ReadonlySet<number>;
  /** V8's platform worker threads (`v8PoolSize`). */
  readonly v8Threads: number;
  /** `getconf CLK_TCK`. */
  readonly ticksPerSecond: number;
}

const NAMED: Readonly<Record<string, ThreadGroup>> = { 'libuv-worker': 'pool', V8Worker: 'v8' };

/**
 * Sums the threads' CPU by group. The main thread answers HTTP; the threads
 * the service started are its search threads (worker_threads, with, when run
 * from source, each one's tsx loader thread, idle once its modules are loaded);
 * of Node's own, the first 1 + `v8Threads` it started (node_platform.cc: the
 * delayed-task scheduler, then the platform workers) run V8's GC and compiler
 * jobs. A thread named for its pool (Node ≥ 22) goes there; on Node 20 libuv's
 * pool is unnamed and counts as other, with the inspector's and the module
 * loader's threads.
 */
export function groupThreadCpu(threads: readonly ThreadSample[], options: GroupOptions): ThreadCpuMs {
  const own = threads
    .filter((t) => t.tid !== options.pid && options.beforeService.has(t.tid))
    .toSorted((a, b) => a.startTicks - b.startTicks || a.tid - b.tid);
  const v8 = new Set(own.slice(0, 1 + options.v8Threads).map((t) => t.tid));
  const sums: Record<ThreadGroup, number> = { http: 0, search: 0, v8: 0, pool: 0, other: 0 };
  for (const t of threads) {
    const group: ThreadGroup =
      t.tid === options.pid
        ? 'http'
        : !options.beforeService.has(t.tid)
          ? 'search'
          : (NAMED[t.name] ?? (v8.has(t.tid) ? 'v8' : 'other'));
    sums[group] += (t.cpuTicks * 1000) / options.ticksPerSecond;
  }
  return sums;
}

/** What each group spent between two readings; null when either is missing (no /proc). */
export function threadCpuDelta(before: ThreadCpuMs | null, after: ThreadCpuMs | null): ThreadCpuMs | null {
  if (!before || !after) return null;
  return {
    http: after.http - before.http,
    search: after.search - before.search,
    v8: after.v8 - before.v8,
    pool: after.pool - before.pool,
    other: after.other - before.other,
  };
}
