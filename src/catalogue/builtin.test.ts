/**
 * The built-in catalogue loads without the schema validator (builtin.ts): this is
 * the proof that it may. Every shipped entry passes the validating loader, and
 * what the validator-free load builds is what the loader builds.
 */
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue, readBuiltinDocument } from './builtin.js';
import { loadCatalogue } from './loader.js';

describe('built-in catalogue', () => {
  const validated = loadCatalogue(readBuiltinDocument());

  it('every shipped entry passes validation', () => {
    expect(validated.problems).toEqual([]);
  });

  it('loads, without the validator, the catalogue the validating loader builds', () => {
    const { catalogue, problems } = loadBuiltinCatalogue();
    expect(problems).toEqual([]);
    expect(catalogue.platforms.length).toBe(validated.catalogue.platforms.length);
    expect(catalogue).toEqual(validated.catalogue);
    expect(Object.isFrozen(catalogue.platforms[0]?.detect.exists)).toBe(true);
  });
});
