/**
 * `userscout catalogue check FILE --format json` on the three public lists in
 * ../shared/reference/: every entry is imported or rejected with a reason, and
 * enough of each imports.
 */
import { describe, expect, it } from 'vitest';
import { checkCatalogueFile, formatCheckReport } from '../../src/cli/catalogue-check.js';
import { referenceDir, referenceFile } from '../support/reference.js';

const reference = (path: string) => referenceFile(path)!;

describe.skipIf(!referenceDir())('catalogue check on the reference lists', () => {
  it.each([
    ['whatsmyname', 'whatsmyname/wmn-data.json', 0.99],
    ['sherlock', 'sherlock/data.json', 0.99],
    ['maigret', 'maigret/data.json', 0.95],
  ])('%s', (format, path, share) => {
    const { report, exitCode } = checkCatalogueFile(reference(path));
    expect(exitCode).toBe(0);
    const json = JSON.parse(formatCheckReport(report, 'json'));
    expect(Object.keys(json).sort()).toEqual([
      'entries',
      'file',
      'format',
      'imported',
      'reasons',
      'rejected',
    ]);
    expect(json.format).toBe(format);
    expect(json.imported + json.rejected).toBe(json.entries);
    expect(json.reasons).toHaveLength(json.rejected);
    for (const r of json.reasons) {
      expect(r.name).toBeTruthy();
      expect(r.reason).toBeTruthy();
    }
    // Maigret's share counts the entries it enables itself; its disabled ones are rejected as such.
    const disabled = json.reasons.filter((r: { reason: string }) =>
      /disabled upstream/.test(r.reason),
    ).length;
    const eligible = format === 'maigret' ? json.entries - disabled : json.entries;
    console.log(
      `catalogue check ${path}: ${json.entries} entries, ${json.imported} imported, ${json.rejected} rejected (${((100 * json.imported) / eligible).toFixed(1)}% of ${eligible})`,
    );
    expect(json.imported / eligible).toBeGreaterThanOrEqual(share);
  });
});
