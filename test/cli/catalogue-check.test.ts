import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCatalogueFile, formatCheckReport } from '../../src/cli/catalogue-check.js';

const dir = mkdtempSync(join(tmpdir(), 'userscout-check-'));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const site = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  uri_check: `https://${name.toLowerCase()}.example/{account}`,
  e_code: 200,
  e_string: 'profile',
  m_code: 404,
  m_string: '',
  known: ['alice'],
  cat: 'social',
  ...extra,
});

describe('catalogue check', () => {
  it('reports what imports and why the rest does not', () => {
    const path = file('wmn.json', { sites: [site('A'), site('B', { valid: false })] });
    const { report, exitCode } = checkCatalogueFile(path);
    expect(exitCode).toBe(0);
    expect(report).toEqual({
      file: path,
      format: 'whatsmyname',
      entries: 2,
      imported: 1,
      rejected: 1,
      reasons: [{ name: 'B', reason: 'disabled upstream (valid: false)' }],
    });
    expect(JSON.parse(formatCheckReport(report, 'json'))).toEqual(report);
    expect(formatCheckReport(report, 'text')).toBe(
      `B: disabled upstream (valid: false)\n${path}: whatsmyname format, 2 entries, 1 imported, 1 rejected`,
    );
  });

  it.each([
    ['unreadable', join(dir, 'absent.json'), 'Cannot read'],
    ['not JSON', file('bad.json', 'not json'), 'is not valid JSON'],
    ['in an unknown format', file('odd.json', { hello: 'world' }), 'is in no known catalogue format'],
    [
      'with nothing importable',
      file('none.json', { sites: [site('B', { valid: false })] }),
      'nothing in the file can be imported',
    ],
  ])('exits non-zero when the file is %s', (_label, path, error) => {
    const { report, exitCode } = checkCatalogueFile(path);
    expect(exitCode).toBe(1);
    expect(report.error).toContain(error);
    expect(formatCheckReport(report, 'text')).toContain(error);
  });
});
