/**
 * The README is part of the product: its first lines are what a new user runs,
 * and its configuration table must name every setting the code has.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8');

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
});
