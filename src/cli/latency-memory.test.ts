import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  latencyMemoryPath,
  maybeSlow,
  mergeLatencies,
  readLatencyMemory,
  writeLatencyMemory,
} from './latency-memory.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'userscout-latency-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('latency memory', () => {
  it('lives in the user cache folder unless a path is set, and nowhere when off', () => {
    expect(latencyMemoryPath('', { XDG_CACHE_HOME: '/c' })).toBe('/c/userscout/latencies.json');
    expect(latencyMemoryPath('', { HOME: '/h' })).toBe('/h/.cache/userscout/latencies.json');
    expect(latencyMemoryPath('/x/l.json', {})).toBe('/x/l.json');
    expect(latencyMemoryPath('off', {})).toBeUndefined();
  });

  it('averages a new answer time with the remembered one, skips names never sent, keeps the rest', () => {
    const before = new Map([
      ['a', 1000],
      ['b', 200],
    ]);
    const next = mergeLatencies(before, [
      { platformId: 'a', status: 'miss', responseTime: 3000 },
      { platformId: 'c', status: 'error', responseTime: 10_000 },
      { platformId: 'b', status: 'invalid', responseTime: 0 },
    ]);
    expect(Object.fromEntries(next)).toEqual({ a: 2000, b: 200, c: 10_000 });
    expect(before.get('a')).toBe(1000);
  });

  it('round-trips through its file and reads a missing, damaged or foreign file as empty', () => {
    const dir = tempDir();
    const path = join(dir, 'deeper', 'latencies.json');
    expect(readLatencyMemory(path).size).toBe(0);
    expect(writeLatencyMemory(path, new Map([['x', 42]]))).toBe(true);
    expect(Object.fromEntries(readLatencyMemory(path))).toEqual({ x: 42 });
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(1);
    writeFileSync(path, '{not json');
    expect(readLatencyMemory(path).size).toBe(0);
    writeFileSync(path, JSON.stringify({ version: 99, latencies: { x: 1 } }));
    expect(readLatencyMemory(path).size).toBe(0);
    writeFileSync(path, JSON.stringify({ version: 1, latencies: { x: 'slow', y: -1, z: 5 } }));
    expect(Object.fromEntries(readLatencyMemory(path))).toEqual({ z: 5 });
    expect(readLatencyMemory(undefined).size).toBe(0);
    expect(writeLatencyMemory(undefined, new Map())).toBe(false);
  });

  it('a write that cannot happen loses only the memory', () => {
    const dir = tempDir();
    const blocker = join(dir, 'file');
    writeFileSync(blocker, '');
    expect(writeLatencyMemory(join(blocker, 'under-a-file.json'), new Map([['x', 1]]))).toBe(false);
  });

  it('names the platforms remembered at or over a threshold as slow, and none never measured', () => {
    const slow = maybeSlow(
      new Map([
        ['a', 3000],
        ['b', 2499],
      ]),
      2500,
    );
    // 'c' was never answered here: its answer time is not known, so it may be slow.
    expect([slow({ id: 'a' }), slow({ id: 'b' }), slow({ id: 'c' })]).toEqual([true, false, true]);
  });
});
