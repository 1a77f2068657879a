import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCatalogueFile } from '../../src/catalogue/read.js';
import { CatalogueError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'userscout-read-'));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const platform = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  category: 'social',
  home: 'https://example.com/',
  profile: `https://example.com/${name.toLowerCase()}/{username}`,
  detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
  known: { claimed: ['alice'], unclaimed: ['noonewouldeverusethis7'] },
  ...extra,
});

describe('readCatalogueFile', () => {
  it('reads our format; entries the loader refuses are rejected with its words', () => {
    const path = file('ours.json', {
      platforms: [platform('A'), platform('B', { category: 'nope' }), platform('a')],
    });
    const result = readCatalogueFile(path);
    expect(result.format).toBe('userscout');
    expect(result.entries).toBe(3);
    expect(result.imported).toBe(1);
    expect(result.rejected.map((r) => r.name)).toEqual(['B', 'a']);
    expect(result.rejected[0]!.reason).toContain('/category must be one of');
    expect(result.rejected[1]!.reason).toContain('duplicate name');
    expect(result.document.platforms.map((p) => p.name)).toEqual(['A']);
    expect(result.load.catalogue.platforms.map((p) => p.name)).toEqual(['A']);
  });

  it('keeps in the document only the entries the loader keeps: two names of one id, the first', () => {
    const path = file('same-id.json', { platforms: [platform('Foo Bar'), platform('foo-bar')] });
    const result = readCatalogueFile(path);
    expect(result.load.catalogue.platforms.map((p) => p.name)).toEqual(['Foo Bar']);
    expect(result.rejected.map((r) => r.name)).toEqual(['foo-bar']);
    // Written out (catalogue import, merge), the document must load as it was read.
    expect(result.document.platforms.map((p) => p.name)).toEqual(['Foo Bar']);
  });

  it('keeps in the document only the entries the loader keeps: an other host another entry checks', () => {
    const borrower = platform('B', {
      home: 'https://b.test/',
      profile: 'https://b.test/u/{username}',
      otherHosts: ['example.com'],
    });
    const path = file('borrowed.json', { platforms: [platform('A'), borrower, platform('C')] });
    const result = readCatalogueFile(path);
    expect(result.load.catalogue.platforms.map((p) => p.name)).toEqual(['A', 'C']);
    expect(result.rejected.map((r) => r.name)).toEqual(['B']);
    expect(result.rejected[0]!.reason).toContain('/otherHosts/0');
    // Valid on its own, B was kept before; the document must load as it was read, B refused no more.
    expect(result.document.platforms.map((p) => p.name)).toEqual(['A', 'C']);
    const again = readCatalogueFile(file('borrowed-again.json', result.document));
    expect(again.rejected).toEqual([]);
  });

  it('keeps a valid entry whose name an earlier invalid entry carried', () => {
    const path = file('shadow.json', { platforms: [platform('A', { category: 'nope' }), platform('A')] });
    const result = readCatalogueFile(path);
    expect(result.document.platforms).toEqual([platform('A')]);
  });

  it('keeps only the shields that load', () => {
    const good = { name: 'cf', reason: 'waf', body: ['Just a moment'] };
    const path = file('shields.json', {
      platforms: [platform('A')],
      shields: [good, { name: 'bad', reason: 'waf' }],
    });
    const result = readCatalogueFile(path);
    expect(result.document.shields).toEqual([good]);
    expect(result.rejected).toEqual([]);
  });

  it('imports an upstream format', () => {
    const path = file('sherlock.json', {
      S: {
        url: 'https://s.example/{}',
        urlMain: 'https://s.example/',
        errorType: 'status_code',
        username_claimed: 'a',
      },
      T: {
        url: 'https://t.example/{}',
        urlMain: 'https://t.example/',
        errorType: 'message',
        username_claimed: 'a',
      },
    });
    const result = readCatalogueFile(path);
    expect(result).toMatchObject({ format: 'sherlock', entries: 2, imported: 1 });
    expect(result.rejected).toEqual([
      { name: 'T', reason: 'no way to tell a missing account: errorType message without errorMsg' },
    ]);
  });

  it.each([
    ['a missing file', join(dir, 'absent.json'), 'Cannot read'],
    ['bad JSON', file('bad.json', '{"platforms": ['), 'is not valid JSON'],
    ['an unknown format', file('other.json', { hello: 'world' }), 'is in no known catalogue format'],
    [
      'our format with an unknown key',
      file('extra.json', { platforms: [], extra: 1 }),
      'Not a userscout catalogue',
    ],
  ])('throws a CatalogueError for %s', (_label, path, message) => {
    expect(() => readCatalogueFile(path)).toThrow(CatalogueError);
    expect(() => readCatalogueFile(path)).toThrow(message);
  });
});
