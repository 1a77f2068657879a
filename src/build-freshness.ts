/**
 * Whether the compiled tree (dist/, as `npm install` builds it) holds what the sources
 * say: a compiled file is fresh when it was built after the last change to any build
 * input. Code run from source (the tests, `npm run dev`) starts the compiled command
 * line and search thread when they are fresh, which costs a fraction of compiling the
 * sources again through tsx in every new process and thread.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root, from src/ and from dist/ alike. */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

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

/** `built` is there and not older than any build input under `sources` (the checkout's src/). */
export function builtIsFresh(built: string, sources = join(PROJECT_ROOT, 'src')): boolean {
  try {
    return statSync(built).mtimeMs >= newestBuildInput(sources);
  } catch {
    return false;
  }
}
