/**
 * Whether the tests that need Chromium run. They run where it is found, and always
 * under CI, which installs it (.ci/run): there a missing browser fails them instead of
 * skipping them unseen. One home for that rule, for every file that launches Chromium.
 */
import { findBrowser } from '../../src/engine/transport/browser.js';

/** Tests that need a browser found (`found`) run: it is there, or CI says it must be. */
export function browserTestsRun(found: boolean): boolean {
  return found || Boolean(process.env.CI);
}

/** Chromium as the browser transport finds it (browser.ts), or CI: its tests run. */
export const hasBrowser = browserTestsRun(findBrowser('') !== undefined);
