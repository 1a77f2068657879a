/**
 * How a test runs the command line as a child process: the compiled `dist/cli/main.js`
 * when it is fresh (src/build-freshness.ts; `npm install` builds it, so CI and a fresh
 * checkout run what users run), else the sources through tsx.
 */
import { join } from 'node:path';
import { builtIsFresh, PROJECT_ROOT } from '../../src/build-freshness.js';

const BUILT = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
const SOURCE = join(PROJECT_ROOT, 'src', 'cli', 'main.ts');

let chosen: readonly string[] | undefined;

/** Node's arguments before the command's own: `[...cliEntry(), 'search', …]`. */
export function cliEntry(): readonly string[] {
  chosen ??= builtIsFresh(BUILT) ? [BUILT] : ['--import', 'tsx', SOURCE];
  return chosen;
}
