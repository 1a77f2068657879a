import { describe, expect, it } from 'vitest';
import { formatValidateReport, validateDocument, validateFile } from '../../src/cli/catalogue-validate.js';
import { entry } from '../support/catalogue.js';

describe('catalogue validate', () => {
  it('finds nothing wrong in the built-in catalogue', () => {
    const report = validateFile(undefined);
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(report.entries);
  });

  it('reports two entries that check the same address, however the URL is written', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Alpha', { profile: 'https://alpha.test/u/{username}' }),
          entry('Alpha Again', { profile: 'HTTPS://Alpha.test/u/{username}/' }),
          entry('Bravo'),
        ],
      },
      'mine.json',
    );
    expect(report.problems).toEqual([
      {
        platform: 'Alpha Again',
        field: '/check/url',
        message: expect.stringMatching(/^checks the same address as Alpha: /),
      },
    ]);
    expect(formatValidateReport(report)).toContain('mine.json: 3 entries, 3 valid, 1 problem');
  });

  it('reports every problem of an entry by field', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Alpha', {
            profile: 'https://alpha.test/u/',
            detect: { exists: [{ status: [200] }], missing: [{ regex: '([' }] },
            username: { pattern: '^[a-z]+$' },
            known: { claimed: ['al ice'], unclaimed: ['nobody'] },
          }),
        ],
      },
      'mine.json',
    );
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Alpha /profile',
      'Alpha /detect/missing/0',
      'Alpha /known/claimed/0',
    ]);
  });

  it('reports a name used twice, without regard to case', () => {
    const report = validateDocument(
      { platforms: [entry('Alpha'), entry('ALPHA', { profile: 'https://other.test/{username}' })] },
      'mine.json',
    );
    expect(report.problems).toEqual([
      { platform: 'ALPHA', field: '/name', message: expect.stringContaining('duplicate name') },
    ]);
  });
});
