/**
 * Comments say why; what a run measured, which commit did it and which issue asked
 * for it belong in bench/README.md, bench/results and docs/decisions. A comment in
 * src/, test/ or bench/ that quotes a commit hash, a benchmark case or an issue
 * number fails here, with its file and line.
 *
 * bench/ and its tests in test/bench/ may name its cases by number (that is what
 * its tables and bench/README.md call them, as a function is called by its name);
 * nothing else may, and nothing may quote a commit or an issue.
 *
 * The guides in docs/ (decisions included) say how to use and size the service; what a
 * run measured is in bench/README.md, which they link to. A line of docs/ that quotes a
 * commit or names a benchmark case fails here too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentsOf } from './support/comments.js';

const root = new URL('..', import.meta.url).pathname;

/** A word of 7 to 40 hex digits holding both a digit and a letter: how a commit is quoted. */
const COMMIT = /\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/;
/** The word case or cases, then a digit: the benchmark's cases by number. */
const BENCH_CASE = /\bcases?\s+\d/i;
/** The word issue or issues, then a number, or a hash sign and digits: an issue or pull request by number. */
const ISSUE = /\bissues?\s+#?\d|(?:^|[\s(,;])#\d+\b/i;

interface Quote {
  line: number;
  kind: 'commit' | 'benchmark case' | 'issue';
  text: string;
}

/** What a source's comments quote that they should not, line by line. */
function quotesIn(text: string, allowCases: boolean): Quote[] {
  const quotes: Quote[] = [];
  for (const comment of commentsOf(text)) {
    comment.text.split('\n').forEach((lineText, i) => {
      const line = comment.line + i;
      if (COMMIT.test(lineText)) quotes.push({ line, kind: 'commit', text: lineText.trim() });
      if (!allowCases && BENCH_CASE.test(lineText))
        quotes.push({ line, kind: 'benchmark case', text: lineText.trim() });
      if (ISSUE.test(lineText)) quotes.push({ line, kind: 'issue', text: lineText.trim() });
    });
  }
  return quotes;
}

/** A UUID's groups and a colour's `#rrggbbaa` are hex too, but no commit. */
const NOT_A_COMMIT = /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|#[0-9a-f]{3,8}\b/gi;

/** What a guide's text quotes that belongs in bench/, line by line. */
function docQuotesIn(text: string): Quote[] {
  const quotes: Quote[] = [];
  text.split('\n').forEach((lineText, i) => {
    const line = i + 1;
    if (COMMIT.test(lineText.replace(NOT_A_COMMIT, '')))
      quotes.push({ line, kind: 'commit', text: lineText.trim() });
    if (BENCH_CASE.test(lineText)) quotes.push({ line, kind: 'benchmark case', text: lineText.trim() });
  });
  return quotes;
}

function filesEndingWith(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ending))
    .map((e) => join(e.parentPath, e.name));
}

describe('source comments', () => {
  it('find what a comment quotes, and only in comments', () => {
    const text = [
      '// measured at 1b71895 (bench case 3, issue 13)',
      'const title = "case 3: through the API"; // see #31',
      '/* a sha256 is 64 hex digits: never quoted here */',
      'const hash = "1b71895";',
      '/** in case of doubt, 3 retries; a decade of use */',
      `const t = \`$\{"case 3"} // case 3 inside a template\`; // fine`,
      'const r = /\\/\\/ case 3/; // a regular expression is no comment either',
    ].join('\n');
    expect(quotesIn(text, false).map((q) => [q.line, q.kind])).toEqual([
      [1, 'commit'],
      [1, 'benchmark case'],
      [1, 'issue'],
      [2, 'issue'],
    ]);
    expect(quotesIn(text, true).map((q) => q.kind)).toEqual(['commit', 'issue', 'issue']);
  });

  it('in src/, test/ and bench/ quote no commit, benchmark case or issue', () => {
    const found: string[] = [];
    for (const dir of ['src', 'test', 'bench']) {
      for (const file of filesEndingWith(join(root, dir), '.ts')) {
        const allowCases =
          file.startsWith(join(root, 'bench/')) || file.startsWith(join(root, 'test/bench/'));
        for (const q of quotesIn(readFileSync(file, 'utf8'), allowCases)) {
          found.push(`${relative(root, file)}:${q.line} (${q.kind}): ${q.text}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('find what a guide quotes, and not a UUID or a colour', () => {
    const text = [
      'Measured at 1b71895 by benchmark case 9.',
      'A search id looks like 0b6a3c1e-8f7d-4c2b-9a1e-5d4c3b2a1f00; the page is #1a2b3c4d.',
      'In case of doubt, 3 retries; 1,600 searches an hour per identity.',
    ].join('\n');
    expect(docQuotesIn(text).map((q) => [q.line, q.kind])).toEqual([
      [1, 'commit'],
      [1, 'benchmark case'],
    ]);
  });

  it('in docs/ quote no commit or benchmark case', () => {
    const found: string[] = [];
    for (const file of filesEndingWith(join(root, 'docs'), '.md')) {
      for (const q of docQuotesIn(readFileSync(file, 'utf8'))) {
        found.push(`${relative(root, file)}:${q.line} (${q.kind}): ${q.text}`);
      }
    }
    expect(found).toEqual([]);
  });
});
