import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { CSV_COLUMNS, csvCell, outcomesCsv } from '../../src/report/outcome-csv.js';

describe('csvCell', () => {
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('defuses cells a spreadsheet would run as formulas', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-alice')).toBe("'-alice");
    expect(csvCell('@home')).toBe("'@home");
  });
});

describe('outcomesCsv', () => {
  const outcome: Outcome = {
    platform: 'Forum',
    platformId: 'forum',
    category: 'forum',
    url: 'https://forum.test/u/bob',
    status: 'miss',
    responseTime: 87,
    evidence: { httpStatus: 404, rule: 'missing: text "No such user, sorry"', attempts: 2 },
  };

  it('names the columns as the API names the fields', () => {
    expect(CSV_COLUMNS).toEqual([
      'username',
      'platform',
      'category',
      'status',
      'reason',
      'responseTime',
      'url',
      'httpStatus',
      'rule',
    ]);
  });

  it('writes the rows of every search in turn, every line CRLF-terminated', () => {
    const text = outcomesCsv([
      { username: 'alice', outcomes: [outcome] },
      {
        username: 'bob',
        outcomes: [
          { ...outcome, status: 'error', reason: 'timeout', evidence: { rule: 'no answer', attempts: 3 } },
        ],
      },
    ]);
    expect(text).toBe(
      'username,platform,category,status,reason,responseTime,url,httpStatus,rule\r\n' +
        'alice,Forum,forum,miss,,87,https://forum.test/u/bob,404,"missing: text ""No such user, sorry"""\r\n' +
        'bob,Forum,forum,error,timeout,87,https://forum.test/u/bob,,no answer\r\n',
    );
  });
});
