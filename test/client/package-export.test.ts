/**
 * `import { UserscoutClient } from 'userscout/client'` works for a program
 * using the package (the build's output, as npm install leaves it).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the package export', () => {
  it('userscout/client resolves to the client and its types', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('userscout/client'); console.log(typeof m.UserscoutClient, typeof m.UserscoutClientError);",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function function');
    const pkg = JSON.parse(
      execFileSync(
        process.execPath,
        ['-p', "JSON.stringify(require('./package.json').exports['./client'])"],
        { cwd: root, encoding: 'utf8' },
      ),
    );
    expect(pkg.types).toBe('./dist/client/index.d.ts');
  });
});
