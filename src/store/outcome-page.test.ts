import { describe, expect, it } from 'vitest';
import type { Outcome } from '../engine/verdict/outcome.js';
import { decodePage, encodePage, fromColumns, toColumns } from './outcome-page.js';

const url = 'https://github.com/alice';
const miss: Outcome = {
  platform: 'GitHub',
  platformId: 'github',
  category: 'coding',
  url,
  status: 'miss',
  responseTime: 187.5,
  evidence: { httpStatus: 404, finalUrl: url, rule: 'missing: status 404', attempts: 1, bytesRead: 1024 },
};
const redirected: Outcome = {
  ...miss,
  platformId: 'gitlab',
  platform: 'GitLab',
  status: 'hit',
  evidence: { ...miss.evidence, finalUrl: 'https://gitlab.com/users/alice' },
};
const invalid: Outcome = {
  platform: 'MetaCPAN',
  platformId: 'metacpan',
  category: 'coding',
  url: 'https://metacpan.org/author/alice',
  status: 'invalid',
  reason: 'username_rule',
  responseTime: 0,
  evidence: { rule: 'username does not match ^[A-Z]+$', attempts: 0 },
};
const cached: Outcome = {
  ...miss,
  platformId: 'x',
  evidence: { ...miss.evidence, cachedAt: 1_700_000_000_000 },
};
// Not what the engine makes, but a page must keep whatever it is given.
const odd = { ...invalid, platformId: 'odd', extra: { a: [1, null] }, reason: null } as unknown as Outcome;
const oddEvidence = { ...invalid, platformId: 'odd2', evidence: 'none' } as unknown as Outcome;
const numericFinalUrl = {
  ...miss,
  platformId: 'odd3',
  evidence: { ...miss.evidence, finalUrl: 1 },
} as unknown as Outcome;

const all = [miss, redirected, invalid, cached, odd, oddEvidence, numericFinalUrl];

describe('outcome pages', () => {
  it('give back every outcome exactly, keys in the same order', async () => {
    const back = await decodePage(await encodePage(all));
    expect(JSON.stringify(back)).toBe(JSON.stringify(all));
    expect(JSON.stringify(fromColumns(toColumns(all)))).toBe(JSON.stringify(all));
  });

  it('leaves out keys whose value is undefined, as JSON does', async () => {
    const withUndefined = {
      ...miss,
      reason: undefined,
      evidence: { ...miss.evidence, bytesRead: undefined },
    };
    const back = await decodePage(await encodePage([withUndefined as Outcome]));
    expect(JSON.stringify(back)).toBe(JSON.stringify([withUndefined]));
    expect('reason' in back[0]!).toBe(false);
  });

  it('keeps a finalUrl equal to the url as a marker, and one that differs as it is', () => {
    const columns = toColumns([miss, redirected]);
    expect(columns.ev.finalUrl).toEqual([1, 'https://gitlab.com/users/alice']);
    expect(columns.shapes).toHaveLength(1);
  });

  it('takes an empty page, and compresses a merged page at least as well', async () => {
    expect(await decodePage(await encodePage([]))).toEqual([]);
    const many = Array.from({ length: 500 }, (_, i) => ({
      ...miss,
      platformId: `p${i}`,
      url: `https://p${i}.example/alice`,
    }));
    const batch = await encodePage(many);
    const merged = await encodePage(many, true);
    expect(merged.length).toBeLessThanOrEqual(batch.length);
    // Far below the ~250 bytes of JSON each of these outcomes is.
    expect(merged.length / many.length).toBeLessThan(40);
    expect(await decodePage(merged)).toEqual(many);
  });

  it('refuses a body of an unknown format', async () => {
    await expect(decodePage(Buffer.of(9, 1, 2))).rejects.toThrow(/unknown format 9/);
  });
});
