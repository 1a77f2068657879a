import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtIsFresh } from './build-freshness.js';

describe('the compiled tree, when code run from source may start it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'userscout-build-freshness-'));
  const src = join(dir, 'src');
  mkdirSync(join(src, 'cli'), { recursive: true });
  const built = join(dir, 'main.js');
  const at = (file: string, seconds: number) => {
    writeFileSync(file, '');
    utimesSync(file, seconds, seconds);
  };

  it('runs it only when built after every source changed; a test file or the data do not count', () => {
    expect(builtIsFresh(built, src)).toBe(false);
    at(join(src, 'cli', 'main.ts'), 1_000);
    at(built, 2_000);
    expect(builtIsFresh(built, src)).toBe(true);
    at(join(src, 'cli', 'main.test.ts'), 3_000);
    at(join(src, 'cli', 'data.json'), 3_000);
    expect(builtIsFresh(built, src)).toBe(true);
    at(join(src, 'cli', 'page.html'), 3_000);
    expect(builtIsFresh(built, src)).toBe(false);
  });
});
