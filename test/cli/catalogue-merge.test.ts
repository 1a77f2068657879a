import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loader.js';
import { runCatalogueMerge } from '../../src/cli/catalogue-merge.js';

const dir = mkdtempSync(join(tmpdir(), 'userscout-merge-'));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const wmn = file('wmn.json', {
  sites: [
    {
      name: 'GitHub',
      uri_check: 'https://github.com/{account}',
      e_code: 200,
      e_string: 'p',
      m_code: 404,
      m_string: '',
      known: ['a'],
      cat: 'coding',
    },
    {
      name: 'Broken',
      uri_check: 'https://b.example/{account}',
      e_code: 200,
      e_string: '',
      m_code: 200,
      m_string: '',
      known: ['a'],
      cat: 'misc',
    },
  ],
});
const sherlock = file('sherlock.json', {
  GitHub: {
    url: 'https://www.github.com/{}',
    urlMain: 'https://github.com/',
    errorType: 'status_code',
    username_claimed: 'a',
  },
  GitLab: {
    url: 'https://gitlab.com/{}',
    urlMain: 'https://gitlab.com/',
    errorType: 'status_code',
    username_claimed: 'a',
  },
});

describe('catalogue merge', () => {
  it('writes the merged catalogue in our format and reports every drop on stderr', () => {
    const outcome = runCatalogueMerge([wmn, sherlock]);
    expect(outcome.exitCode).toBe(0);
    const merged = JSON.parse(outcome.stdout);
    expect(merged.platforms.map((p: { name: string }) => p.name)).toEqual(['GitHub', 'GitLab']);
    expect(loadCatalogue(merged).problems).toEqual([]);
    expect(outcome.dropped).toEqual([
      {
        name: 'Broken',
        source: wmn,
        reason: expect.stringContaining('not importable: no way to tell a missing account'),
      },
      { name: 'GitHub', source: sherlock, reason: `same name as GitHub (from ${wmn})` },
    ]);
    expect(outcome.stderr).toContain(`dropped GitHub (${sherlock}): same name as GitHub`);
    expect(outcome.stderr).toContain('merged 2 files: 2 platforms, 2 dropped');
  });

  it('writes to -o OUT instead of stdout', () => {
    const out = join(dir, 'out.json');
    const outcome = runCatalogueMerge([sherlock], { output: out });
    expect(outcome.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).platforms).toHaveLength(2);
  });

  it('writes nothing when an input is unusable', () => {
    const outcome = runCatalogueMerge([sherlock, join(dir, 'absent.json')]);
    expect(outcome).toMatchObject({ exitCode: 1, stdout: '' });
    expect(outcome.stderr).toContain('Cannot read');
  });
});
