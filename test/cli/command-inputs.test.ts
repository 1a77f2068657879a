/**
 * The catalogue a command loads: the built-in one without the validator, a file
 * the user gives validated as ever (a bad entry left out, with a warning).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import { loadCommandCatalogue } from '../../src/cli/command-inputs.js';
import { entry } from '../support/catalogue.js';

describe('loadCommandCatalogue', () => {
  it('validates a catalogue file: a bad entry is left out and counted in a warning', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'userscout-cat-')), 'catalogue.json');
    const bad = { ...entry('Broken'), detect: { exists: [{ status: [999] }], missing: [] } };
    writeFileSync(file, JSON.stringify({ platforms: [entry('Good'), bad] }));
    const warnings: string[] = [];
    const catalogue = await loadCommandCatalogue(file, (text) => warnings.push(text));
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Good']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: \d+ catalogue entr(y was|ies were) left out/);
  });

  it('without a file, is the built-in catalogue, with no warning', async () => {
    const warnings: string[] = [];
    const catalogue = await loadCommandCatalogue(undefined, (text) => warnings.push(text));
    expect(catalogue).toBe(loadBuiltinCatalogue().catalogue);
    expect(warnings).toEqual([]);
  });
});
