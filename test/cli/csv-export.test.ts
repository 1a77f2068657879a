import { describe, expect, it } from 'vitest';
import { formatCsv, type SearchReport } from '../../src/cli/output.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { toCsv } from '../../src/web/export-format.js';

const outcome = (platform: string, status: Outcome['status']): Outcome => ({
  platform,
  platformId: platform.toLowerCase(),
  category: 'social',
  url: `https://${platform.toLowerCase()}.test/u/alice`,
  status,
  responseTime: 10,
  evidence: { httpStatus: status === 'hit' ? 200 : 404, rule: `rule of ${platform}`, attempts: 1 },
});

const report: SearchReport = {
  id: '00000000-0000-4000-8000-000000000001',
  username: 'alice',
  startedAt: 0,
  finishedAt: 1000,
  status: 'completed',
  totalPlatforms: 3,
  results: [outcome('zeta', 'hit'), outcome('Beta', 'miss'), outcome('alpha', 'hit')],
};

describe('formatCsv', () => {
  it('writes hits only, by platform name, with CRLF line ends', () => {
    expect(formatCsv([report], false)).toBe(
      'username,platform,category,status,reason,responseTime,url,httpStatus,rule\r\n' +
        'alice,alpha,social,hit,,10,https://alpha.test/u/alice,200,rule of alpha\r\n' +
        'alice,zeta,social,hit,,10,https://zeta.test/u/alice,200,rule of zeta\r\n',
    );
  });

  it('writes the same text as the web page for the same outcomes in the same order (one writer)', () => {
    const sorted = [outcome('alpha', 'hit'), outcome('Beta', 'miss'), outcome('zeta', 'hit')];
    expect(formatCsv([report], true)).toBe(toCsv('alice', sorted));
  });
});
