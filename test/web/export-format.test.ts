import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { exportFileName, toCsv, toJson } from '../../src/web/export-format.js';

const hit: Outcome = {
  platform: 'Git, "Place"',
  platformId: 'gitplace',
  category: 'coding',
  url: 'https://git.test/u/alice',
  status: 'hit',
  responseTime: 123,
  evidence: { httpStatus: 200, rule: 'exists: status 200', attempts: 1 },
};
const unknown: Outcome = {
  ...hit,
  platform: 'Shielded',
  platformId: 'shielded',
  status: 'unknown',
  reason: 'waf',
  responseTime: 0,
  evidence: { httpStatus: 403, rule: 'shield: cloudflare', attempts: 1 },
};

describe('toCsv', () => {
  it('writes a header and one row per outcome, CRLF-terminated', () => {
    expect(toCsv('alice', [hit, unknown])).toBe(
      'username,platform,category,status,reason,responseTime,url,httpStatus,rule\r\n' +
        'alice,"Git, ""Place""",coding,hit,,123,https://git.test/u/alice,200,exists: status 200\r\n' +
        'alice,Shielded,coding,unknown,waf,0,https://git.test/u/alice,403,shield: cloudflare\r\n',
    );
  });

  it('writes only the header for no outcome', () => {
    expect(toCsv('alice', [])).toBe(
      'username,platform,category,status,reason,responseTime,url,httpStatus,rule\r\n',
    );
  });
});

describe('toJson', () => {
  it('round-trips the search and its results', () => {
    const search = {
      queryId: 'q',
      username: 'alice',
      status: 'completed',
      createdAt: '2025-01-01T00:00:00.000Z',
      exportedAt: '2025-01-01T00:01:00.000Z',
      results: [hit, unknown],
    };
    expect(JSON.parse(toJson(search))).toEqual(search);
  });
});

describe('exportFileName', () => {
  it('keeps letters, digits, dot, dash and underscore', () => {
    const at = new Date('2025-03-04T05:06:07Z');
    expect(exportFileName('alice', at, 'csv')).toBe('userscout-alice-2025-03-04.csv');
    expect(exportFileName('a*b?c', at, 'json')).toBe('userscout-a_b_c-2025-03-04.json');
    expect(exportFileName('Ünïcødé.name', at, 'csv')).toBe('userscout-Ünïcødé.name-2025-03-04.csv');
  });
});
