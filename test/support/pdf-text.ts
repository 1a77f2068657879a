/**
 * A PDF read back by poppler's own tools (package poppler-utils, installed by
 * .ci/run): its pages rendered by `pdftoppm`, its text by `pdftotext`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './service.js';

export interface ReadPdf {
  /** Pages `pdftoppm` rendered (one PNG each). */
  readonly pages: number;
  /** The text `pdftotext` read, pages in order. */
  readonly text: string;
}

export function readPdf(pdf: Uint8Array): ReadPdf {
  const dir = tempDir('userscout-pdf-');
  const file = join(dir, 'report.pdf');
  writeFileSync(file, pdf);
  // Low resolution: the test needs the pages, not their look.
  execFileSync('pdftoppm', ['-png', '-r', '20', file, join(dir, 'page')]);
  const pages = readdirSync(dir).filter((f) => /^page-\d+\.png$/.test(f)).length;
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  return { pages, text };
}
