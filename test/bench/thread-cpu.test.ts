import { describe, expect, it } from 'vitest';
import {
  groupThreadCpu,
  parseTaskStat,
  type ThreadSample,
  threadCpuDelta,
  v8PoolSize,
} from '../../bench/thread-cpu.js';

/** A stat line as Linux writes it: utime, stime and starttime at fields 14, 15 and 22. */
function statLine(tid: number, comm: string, utime: number, stime: number, start: number): string {
  const after = ['S', '1', tid, tid, 0, -1, 4194560, 100, 0, 0, 0, utime, stime, 0, 0, 20, 0, 12, 0, start];
  return `${tid} (${comm}) ${after.join(' ')} 1234 5678 18446744073709551615\n`;
}

describe('parseTaskStat', () => {
  it('reads utime + stime and the start, counting after the name', () => {
    expect(parseTaskStat(statLine(7, 'node', 120, 30, 355423))).toEqual({
      cpuTicks: 150,
      startTicks: 355423,
    });
    // A name with spaces and a parenthesis does not shift the fields.
    expect(parseTaskStat(statLine(7, 'a (b) c', 5, 6, 9))).toEqual({ cpuTicks: 11, startTicks: 9 });
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseTaskStat('nonsense')).toThrow(/not a \/proc stat line/);
  });
});

describe('v8PoolSize', () => {
  it('takes the last --v8-pool-size, else the default', () => {
    expect(v8PoolSize([])).toBe(4);
    expect(v8PoolSize(['--import', 'tsx', '--v8-pool-size=1'])).toBe(1);
    expect(v8PoolSize(['--v8-pool-size=2', '--v8-pool-size=6'])).toBe(6);
  });
});

describe('groupThreadCpu', () => {
  const thread = (tid: number, cpuTicks: number, startTicks: number, name = 'node'): ThreadSample => ({
    tid,
    name,
    cpuTicks,
    startTicks,
  });
  // A server under tsx as Node 20 lays it out: main; the delayed-task scheduler and 4 platform
  // workers; the inspector's thread; libuv's pool; the loader; then the search thread and its loader.
  // Tids wrapped around (pid_max) after the scheduler: the start time orders them.
  const threads = [
    thread(30000, 700, 100),
    thread(30001, 1, 100),
    thread(5, 50, 100),
    thread(6, 40, 100),
    thread(7, 30, 100),
    thread(8, 20, 100),
    thread(9, 0, 101),
    thread(10, 2, 102),
    thread(11, 1, 102),
    thread(12, 35, 103),
    thread(40, 3000, 500),
    thread(41, 13, 502),
  ];
  const options = {
    pid: 30000,
    beforeService: new Set([30000, 30001, 5, 6, 7, 8, 9, 10, 11, 12]),
    v8Threads: 4,
    ticksPerSecond: 100,
  };

  it('puts the main thread in http, the service’s threads in search, the first five of Node’s in v8', () => {
    expect(groupThreadCpu(threads, options)).toEqual({
      http: 7000,
      search: 30130,
      v8: 1410,
      pool: 0,
      other: 380,
    });
  });

  it('follows the names when the threads have them', () => {
    const named = threads.map((t) => (t.tid === 10 || t.tid === 11 ? { ...t, name: 'libuv-worker' } : t));
    expect(groupThreadCpu(named, options)).toMatchObject({ pool: 30, other: 350 });
  });

  it('differences two readings, or gives null without one', () => {
    const before = groupThreadCpu(threads, options);
    const after = groupThreadCpu(
      threads.map((t) => ({ ...t, cpuTicks: t.cpuTicks + 10 })),
      options,
    );
    expect(threadCpuDelta(before, after)).toEqual({ http: 100, search: 200, v8: 500, pool: 0, other: 400 });
    expect(threadCpuDelta(null, after)).toBeNull();
    expect(threadCpuDelta(before, null)).toBeNull();
  });
});
