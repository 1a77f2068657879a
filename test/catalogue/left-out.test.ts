/**
 * docs/catalogue.md's "Left out" list names every disabled entry of the built-in
 * catalogue, and only those: a reader finds there why a site of the public lists
 * is not checked, and an entry enabled again leaves the list.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';

function leftOutNames(markdown: string): string[] {
  const start = markdown.indexOf('\n## Left out\n');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^- \*\*(.+?)\*\*/gm)].map((m) => m[1] ?? '');
}

describe('the catalogue guide\u2019s list of sites left out', () => {
  it('names each disabled entry once, and no enabled one', () => {
    const listed = leftOutNames(readFileSync(new URL('../../docs/catalogue.md', import.meta.url), 'utf8'));
    const platforms = loadBuiltinCatalogue().catalogue.platforms;
    const disabled = platforms.filter((p) => !p.enabled).map((p) => p.name);
    expect(disabled.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...disabled].sort());
  });

  it('reads the list from its own section only', () => {
    const names = leftOutNames(
      '# T\n\n- **Before**\n\n## Left out\n\n- **A** (x): y\n- **B**: z\n\n## Next\n\n- **After**\n',
    );
    expect(names).toEqual(['A', 'B']);
  });
});
