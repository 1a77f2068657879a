import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendantsOf, descendantUsage, parseProcStat, readProcStats } from '../../bench/descendants.js';

describe('descendants', () => {
  it('reads pid, parent, CPU with reaped children, and RSS from a stat line whose name has spaces', () => {
    const line =
      '4242 (Chrome (ren) x) S 4200 4242 4242 0 -1 4194560 100 0 0 0 30 12 5 3 20 0 9 0 5000 300000000 2560 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4200, cpuTicks: 30 + 12 + 5 + 3, rssPages: 2560 });
    expect(() => parseProcStat('garbage')).toThrow(/not a \/proc stat line/);
  });

  it('finds every process under a root, grandchildren included, and no other', () => {
    const p = (pid: number, ppid: number) => ({ pid, ppid, cpuTicks: pid, rssPages: 1 });
    const all = [p(1, 0), p(10, 1), p(11, 10), p(12, 11), p(13, 10), p(20, 1)];
    expect(
      descendantsOf(10, all)
        .map((d) => d.pid)
        .sort(),
    ).toEqual([11, 12, 13]);
    expect(descendantsOf(12, all)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')(
    'counts a child this process started, and not this process',
    async () => {
      expect(readProcStats().some((s) => s.pid === process.pid)).toBe(true);
      const child = spawn('sleep', ['5']);
      try {
        await new Promise((resolve) => child.once('spawn', resolve));
        expect(descendantsOf(process.pid, readProcStats()).map((d) => d.pid)).toContain(child.pid);
        // Just after exec the kernel may not yet count the new image's pages: look again, a bounded number of times.
        let pages = 0;
        for (let i = 0; i < 100 && pages === 0; i++) {
          pages = descendantUsage(process.pid).rssPages;
          if (pages === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(pages).toBeGreaterThan(0);
      } finally {
        child.kill();
      }
    },
  );
});
