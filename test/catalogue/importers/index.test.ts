import { describe, expect, it } from 'vitest';
import { detectFormat, importCatalogue } from '../../../src/catalogue/importers/index.js';
import { CatalogueError } from '../../../src/errors.js';

const ours = {
  platforms: [
    {
      name: 'Example',
      category: 'social',
      home: 'https://example.com/',
      profile: 'https://example.com/{username}',
      detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
      known: { claimed: ['alice'], unclaimed: ['noonewouldeverusethis7'] },
    },
  ],
};
const whatsmyname = {
  sites: [
    {
      name: 'W',
      uri_check: 'https://w.example/{account}',
      e_code: 200,
      e_string: 'x',
      m_code: 404,
      m_string: '',
      known: ['a'],
      cat: 'misc',
    },
  ],
};
const sherlock = {
  $schema: 'data.schema.json',
  S: {
    url: 'https://s.example/{}',
    urlMain: 'https://s.example/',
    errorType: 'status_code',
    username_claimed: 'a',
  },
};
const maigret = {
  sites: { M: { url: 'https://m.example/{username}', checkType: 'status_code', usernameClaimed: 'a' } },
  engines: {},
  tags: [],
};

describe('detectFormat', () => {
  it.each([
    ['userscout', ours],
    ['whatsmyname', whatsmyname],
    ['sherlock', sherlock],
    ['maigret', maigret],
    [undefined, { hello: 'world' }],
    [undefined, []],
    [undefined, null],
    [undefined, 'text'],
  ])('%s', (format, doc) => {
    expect(detectFormat(doc)).toBe(format);
  });
});

describe('importCatalogue', () => {
  it('passes our own format through unchanged', () => {
    expect(importCatalogue(ours)).toEqual({ format: 'userscout', entries: 1, document: ours, rejected: [] });
  });

  it.each([
    ['whatsmyname', whatsmyname, 'W'],
    ['sherlock', sherlock, 'S'],
    ['maigret', maigret, 'M'],
  ])('imports %s', (format, doc, name) => {
    const result = importCatalogue(doc);
    expect(result.format).toBe(format);
    expect(result.entries).toBe(1);
    expect(result.rejected).toEqual([]);
    expect(result.document.platforms.map((p) => p.name)).toEqual([name]);
  });

  it('refuses a document in no known format', () => {
    expect(() => importCatalogue({ hello: 'world' })).toThrow(CatalogueError);
  });
});
