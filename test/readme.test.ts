/**
 * The README is part of the product: its first lines are what a new user runs,
 * its configuration table must name every setting the code has, the commands it
 * shows must exist, and it stays a user's guide: short, its links resolving, with
 * figures and history left to bench/ and docs/decisions/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8');
const cliDir = new URL('../src/cli/', import.meta.url);
const cliSource = readdirSync(cliDir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => readFileSync(new URL(f, cliDir), 'utf8'))
  .join('\n');

/** The lines of the README's shell blocks. */
function shellLines(): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').split('\n'));
}

describe('README', () => {
  it('opens with the install-and-start command and the test command', () => {
    const opening = readme.split('\n').slice(0, 10).join('\n');
    expect(opening).toContain('npm install && npm start');
    expect(opening).toContain('npm test');
    expect(pkg.scripts.start).toBeTruthy();
    expect(pkg.scripts.test).toBeTruthy();
    expect(ci).toMatch(/^npm test$/m);
  });

  it('documents every setting by its environment variable', () => {
    const missing = Object.values(SETTINGS)
      .map((s) => s.env)
      .filter((env) => !readme.includes(`\`${env}\``));
    expect(missing).toEqual([]);
  });

  it('is a guide of at most 450 lines that quotes no commit', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(450);
    expect(readme.match(/\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g)).toBeNull();
  });

  it('runs only npm scripts that exist', () => {
    const scripts = shellLines().flatMap((line) =>
      [...line.matchAll(/npm run (\w[\w:-]*)/g)].map((m) => m[1]),
    );
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((name) => !(name! in pkg.scripts))).toEqual([]);
  });

  it('shows only commands and options the command line has', () => {
    const lines = shellLines().filter((line) => /\bnpx userscout \w/.test(line));
    expect(lines.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const line of lines) {
      const code = line.split('#')[0] ?? '';
      const [, command, sub] = /npx userscout ([\w-]+)(?: ([a-z][\w-]*))?/.exec(code) ?? [];
      if (!cliSource.includes(`.command('${command}')`)) missing.push(command!);
      if (sub && ['catalogue', 'keys'].includes(command!) && !cliSource.includes(`.command('${sub}')`)) {
        missing.push(`${command} ${sub}`);
      }
      for (const [flag] of code.matchAll(/--[a-z][\w-]*/g)) {
        if (
          !cliSource.includes(`'${flag}`) &&
          !cliSource.includes(`"${flag}`) &&
          !cliSource.includes(`${flag} <`)
        )
          missing.push(flag);
      }
    }
    expect(missing).toEqual([]);
  });

  it('links only to files that exist', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !existsSync(new URL(`../${link}`, import.meta.url)))).toEqual([]);
  });
});
