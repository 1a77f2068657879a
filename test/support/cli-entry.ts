/**
 * How a test runs the command line as a child process: the compiled `dist/cli/main.js`
 * when it was built after the last change to any source file (as `npm install` builds it,
 * so CI and a fresh checkout run what users run), else the sources through tsx. A
 * compiled process starts in about two thirds of tsx's CPU, and the suite starts dozens.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'dist', 'cli', 'main.js');
const SOURCE = join(ROOT, 'src', 'cli', 'main.ts');
/** What the build reads: code and the page's files (the catalogue's data is read from src/ at run time). */
const BUILD_INPUT = /\.(ts|html|css)$/;

/** The last change to a build input under `dir`, in ms. */
function newestBuildInput(dir: string): number {
  let newest = 0;
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!BUILD_INPUT.test(file) || file.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(join(dir, file)).mtimeMs);
  }
  return newest;
}

/** The compiled CLI is there and not older than any source. */
export function builtIsFresh(built = BUILT, sources = join(ROOT, 'src')): boolean {
  try {
    return statSync(built).mtimeMs >= newestBuildInput(sources);
  } catch {
    return false;
  }
}

let chosen: readonly string[] | undefined;

/** Node's arguments before the command's own: `[...cliEntry(), 'search', …]`. */
export function cliEntry(): readonly string[] {
  chosen ??= builtIsFresh() ? [BUILT] : ['--import', 'tsx', SOURCE];
  return chosen;
}
