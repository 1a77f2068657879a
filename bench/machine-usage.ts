/**
 * CPU time of the whole machine (os.cpus()), whoever used it: how many cores
 * were busy between two readings. Beside a deployment's own CPU it says how
 * much other work (the benchmark's clients, anything else on the machine)
 * took of the cores the deployment shares.
 */
import { cpus } from 'node:os';

export interface MachineTimes {
  /** Busy (user, nice, sys, irq) and idle time summed over the cores since boot (ms). */
  readonly busyMs: number;
  readonly idleMs: number;
}

export function readMachineTimes(): MachineTimes {
  let busyMs = 0;
  let idleMs = 0;
  for (const { times } of cpus()) {
    busyMs += times.user + times.nice + times.sys + times.irq;
    idleMs += times.idle;
  }
  return { busyMs, idleMs };
}

/** Cores busy between two readings: busy time over the wall time it was spread over (busy + idle ÷ cores). */
export function busyCores(before: MachineTimes, after: MachineTimes, cores: number): number {
  const busy = after.busyMs - before.busyMs;
  const all = busy + after.idleMs - before.idleMs;
  return all > 0 ? (busy / all) * cores : 0;
}
