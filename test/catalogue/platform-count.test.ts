/**
 * A guard on coverage: the built-in catalogue never quietly loses platforms.
 * Raise the floor when platforms are added; lowering it needs a reason in the
 * commit that does it (a site closed, a rule that can no longer tell).
 */
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';

/** Enabled platforms of the built-in catalogue, at least. */
const ENABLED_FLOOR = 2873;

describe('built-in catalogue size', () => {
  it(`keeps at least ${ENABLED_FLOOR} enabled platforms`, () => {
    const { platforms } = loadBuiltinCatalogue().catalogue;
    const enabled = platforms.filter((p) => p.enabled).length;
    console.log(
      `built-in catalogue: ${platforms.length} platforms, ${enabled} enabled (floor ${ENABLED_FLOOR})`,
    );
    expect(enabled).toBeGreaterThanOrEqual(ENABLED_FLOOR);
  });
});
