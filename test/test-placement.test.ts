/**
 * One home for a module's tests: its unit tests beside it (`src/x/y.test.ts`), and
 * the integration tests under test/ named for the behaviour they drive, never
 * mirroring a module that has tests beside it (a reader would have to look twice).
 */
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);

function testsBesideSource(): string[] {
  return readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.test.ts'),
  );
}

describe('where tests live', () => {
  it('finds the unit tests beside the source', () => {
    expect(testsBesideSource().length).toBeGreaterThan(20);
  });

  it('has no test under test/ mirroring a module whose tests sit beside it', () => {
    const mirrored = testsBesideSource().filter((file) => existsSync(new URL(`test/${file}`, root)));
    expect(mirrored).toEqual([]);
  });
});
