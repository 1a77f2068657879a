/**
 * Comments say why; what a run measured, which commit did it and which issue asked
 * for it belong in bench/README.md, bench/results and docs/decisions. A comment in
 * src/, test/ or bench/ that quotes a commit hash, a benchmark case or an issue
 * number fails here, with its file and line.
 *
 * bench/ and its tests in test/bench/ may name its cases by number (that is what
 * its tables and bench/README.md call them, as a function is called by its name);
 * nothing else may, and nothing may quote a commit or an issue.
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

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
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
      for (const file of tsFiles(join(root, dir))) {
        const allowCases =
          file.startsWith(join(root, 'bench/')) || file.startsWith(join(root, 'test/bench/'));
        for (const q of quotesIn(readFileSync(file, 'utf8'), allowCases)) {
          found.push(`${relative(root, file)}:${q.line} (${q.kind}): ${q.text}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
