/**
 * `userscout variants NAME` in process and as a process, and `search --variants`:
 * the same deterministic list the API searches, capped by the setting or --max.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lookalikeNames } from '../../src/catalogue/lookalike-names.js';
import { runVariants } from '../../src/cli/variants.js';
import { cliEntry } from '../support/cli-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function capture() {
  const out: string[] = [];
  return { io: { out: (text: string) => out.push(text) }, text: () => out.join('\n') };
}

describe('userscout variants', () => {
  it('prints one name a line, as many as the setting allows, the same each time', () => {
    const first = capture();
    runVariants('john.doe', {}, first.io, { USERSCOUT_MAX_VARIANTS: '7' });
    const lines = first.text().split('\n');
    expect(lines).toEqual(lookalikeNames('john.doe', 7).map((v) => v.username));
    expect(lines).toHaveLength(7);
    expect(lines).not.toContain('john.doe');
    const again = capture();
    runVariants('john.doe', {}, again.io, { USERSCOUT_MAX_VARIANTS: '7' });
    expect(again.text()).toBe(first.text());
  });

  it('defaults to 10, takes --max, and prints JSON with each kind', () => {
    const plain = capture();
    runVariants('acme', {}, plain.io, {});
    expect(plain.text().split('\n')).toHaveLength(10);
    const json = capture();
    runVariants('acme', { max: '3', format: 'json' }, json.io, {});
    const listed = JSON.parse(json.text());
    expect(listed).toEqual(lookalikeNames('acme', 3));
    expect(listed.map((v: { kind: string }) => v.kind)).toEqual(['swap', 'double', 'drop']);
    const none = capture();
    runVariants('acme', { max: '0' }, none.io, {});
    expect(none.text()).toBe('');
  });

  it('refuses a bad name, --max or --format as a usage error', () => {
    const { io } = capture();
    expect(() => runVariants('a b', {}, io, {})).toThrow(
      expect.objectContaining({ code: 'invalid_username' }),
    );
    expect(() => runVariants('acme', { max: '101' }, io, {})).toThrow(
      /--max must be a whole number from 0 to 100; received 101/,
    );
    expect(() => runVariants('acme', { format: 'xml' }, io, {})).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('runs as a command: the list on stdout, exit 0; a bad --max exits 2 with one line', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [...cliEntry(), ...args], {
          cwd: ROOT,
          env: { ...process.env, NODE_NO_WARNINGS: '1', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('close', (code) => {
          clearTimeout(killer);
          resolve({ code, stdout, stderr });
        });
      });
    const ok = await run(['variants', 'john.doe', '--max', '4']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout.trim().split('\n')).toEqual(lookalikeNames('john.doe', 4).map((v) => v.username));
    const bad = await run(['variants', 'john.doe', '--max', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'userscout: --max must be a whole number from 0 to 100; received lots (see userscout variants --help)',
    );
  }, 60_000);
});
