/**
 * CPU and memory of a process's descendants (the browser an engine launches, its
 * renderers and helpers), from Linux's /proc: what `process.resourceUsage()` of the
 * engine never counts. A descendant's CPU includes its reaped children's (`cutime`,
 * `cstime`), so a renderer that ended is still counted by the process that waited for it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime + cutime + cstime (clock ticks). */
  readonly cpuTicks: number;
  /** Resident set size (pages). */
  readonly rssPages: number;
}

/**
 * pid, ppid, CPU and RSS of a `stat` line (proc(5): fields 1, 4, 14-17 and 24). The
 * name, field 2, may hold spaces and parentheses: fields are counted after its last ')'.
 */
export function parseProcStat(stat: string): ProcStat {
  const pid = Number(stat.slice(0, stat.indexOf(' ')));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state).
  const field = (i: number) => Number(fields[i]);
  const ppid = field(1);
  const cpuTicks = field(11) + field(12) + field(13) + field(14);
  const rssPages = field(21);
  if (![pid, ppid, cpuTicks, rssPages].every(Number.isFinite))
    throw new Error(`not a /proc stat line: ${stat.slice(0, 80)}`);
  return { pid, ppid, cpuTicks, rssPages };
}

/** The processes under `root` (not `root` itself) among `all`. */
export function descendantsOf(root: number, all: readonly ProcStat[]): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcStat[] = [];
  const stack = [...(children.get(root) ?? [])];
  for (let p = stack.pop(); p; p = stack.pop()) {
    out.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** Every process /proc shows now; one that ends while it is read is left out. */
export function readProcStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.push(parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // Ended between the listing and the read.
    }
  }
  return out;
}

/** CPU (ticks) and resident memory (pages) of `root`'s descendants now. */
export function descendantUsage(root: number): { cpuTicks: number; rssPages: number } {
  let cpuTicks = 0;
  let rssPages = 0;
  for (const p of descendantsOf(root, readProcStats())) {
    cpuTicks += p.cpuTicks;
    rssPages += p.rssPages;
  }
  return { cpuTicks, rssPages };
}

function getconf(name: string, fallback: number): number {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
}

/** Clock ticks a second in /proc's CPU times (Linux's USER_HZ, 100, when getconf cannot say). */
export function clockTicksPerSecond(): number {
  return getconf('CLK_TCK', 100);
}

/** Bytes of a page in /proc's RSS. */
export function pageBytes(): number {
  return getconf('PAGESIZE', 4096);
}

/** What a process's descendants used over a piece of work. */
export interface DescendantUsage {
  /** Their CPU between the readings (ms), the ones that ended and were waited for included. */
  readonly cpuMs: number;
  /** The most resident memory they held at once, sampled (MiB). */
  readonly peakRssMb: number;
}

/** How often the descendants' memory is sampled (ms). */
const SAMPLE_MS = 100;

/** Runs `work` while sampling `root`'s descendants from this process, and what they used over it. */
export async function watchDescendants<T>(
  root: number,
  work: () => Promise<T>,
): Promise<{ result: T; usage: DescendantUsage }> {
  const before = descendantUsage(root);
  let peakPages = before.rssPages;
  const sampler = setInterval(() => {
    peakPages = Math.max(peakPages, descendantUsage(root).rssPages);
  }, SAMPLE_MS);
  try {
    const result = await work();
    const after = descendantUsage(root);
    peakPages = Math.max(peakPages, after.rssPages);
    return {
      result,
      usage: {
        cpuMs: ((after.cpuTicks - before.cpuTicks) * 1000) / clockTicksPerSecond(),
        peakRssMb: (peakPages * pageBytes()) / 1_048_576,
      },
    };
  } finally {
    clearInterval(sampler);
  }
}
