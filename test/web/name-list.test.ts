import { describe, expect, it } from 'vitest';
import { namesFromCsv, namesFromText } from '../../src/web/name-list.js';

describe('namesFromText', () => {
  it('takes one name a line or several separated by commas, semicolons or tabs, each once', () => {
    expect(namesFromText('alice\nbob, carol;dave\teve\r\n\n  alice  \n"frank"')).toEqual([
      'alice',
      'bob',
      'carol',
      'dave',
      'eve',
      'frank',
    ]);
    expect(namesFromText('  \n ,, ')).toEqual([]);
  });
});

describe('namesFromCsv', () => {
  it('takes the first column, without a header row or a byte-order mark', () => {
    expect(namesFromCsv('\uFEFFusername,notes\nacme,"main, brand"\n"acme_hq",x\n\nacme\n')).toEqual([
      'acme',
      'acme_hq',
    ]);
    expect(namesFromCsv('acme\nacme.shop')).toEqual(['acme', 'acme.shop']);
  });

  it('keeps quotes inside a quoted name', () => {
    expect(namesFromCsv('"a""b",1')).toEqual(['a"b']);
  });
});
