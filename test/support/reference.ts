/**
 * The public site lists of WhatsMyName, Sherlock and Maigret live outside the
 * repository (they are never committed). Tests find them at
 * USERSCOUT_REFERENCE_DIR, or beside the checkout (`../shared/reference`);
 * without them, the tests on the real files are skipped with a warning.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export function referenceDir(): string | undefined {
  const candidates = [process.env.USERSCOUT_REFERENCE_DIR, join(REPO, '..', 'shared', 'reference')].filter(
    (d): d is string => Boolean(d),
  );
  return candidates.find((d) => existsSync(join(d, 'sherlock', 'data.json')));
}

/** Absolute path of a reference file, or undefined when the reference folder is not on this machine. */
export function referenceFile(relative: string): string | undefined {
  const dir = referenceDir();
  if (!dir) return undefined;
  const file = join(dir, relative);
  return existsSync(file) ? file : undefined;
}

if (!referenceDir())
  console.warn(
    'reference site lists not found (USERSCOUT_REFERENCE_DIR or ../shared/reference beside the checkout): the tests on the real files are skipped',
  );
