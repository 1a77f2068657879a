import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * Three projects. Most files share their worker's modules (`isolate: false`): a fresh
 * process per file cost a third of the suite's CPU in imports alone. A file runs alone
 * when it keeps state a process holds once: impit's trust store (the impersonate
 * transport, escalation), a mocked module, faked timers, the process's own children
 * (the browser and cluster tests count and kill them), or the simulated web's defences.
 */
const ALONE_FOLDERS = ['test/transport/', 'test/cluster/'];
const ALONE_FILES = new Set([
  'src/schedule/shelf-refresh.test.ts',
  'src/engine/escalation.test.ts',
  'src/engine/transport-book.test.ts',
  'src/sim/defence.test.ts',
  'test/api/platform-reach.test.ts',
  'test/cli/process.test.ts',
  'test/runner/search-thread.test.ts',
  'test/catalogue/defence-tags.test.ts',
  'test/catalogue-extract-sim.test.ts',
  'test/catalogue-sim.test.ts',
  'test/sessions.test.ts',
]);
/**
 * Files that read a count the whole machine keeps (the kernel's dropped connections): they run
 * after every other file, one at a time, so no other test adds to what they read.
 */
const LAST_FILES = new Set(['test/api/listen-backlog.test.ts']);

function testFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `${folder}/${file}`);
}

const all = [...testFiles('src'), ...testFiles('test')];
const last = all.filter((file) => LAST_FILES.has(file));
const rest = all.filter((file) => !LAST_FILES.has(file));
const alone = rest.filter((file) => ALONE_FILES.has(file) || ALONE_FOLDERS.some((f) => file.startsWith(f)));
const shared = rest.filter((file) => !alone.includes(file));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A poll waits for a page or a service to get somewhere; on two loaded cores with Chromium
    // beside it that takes seconds, not the default one. It ends as soon as its value holds.
    expect: { poll: { timeout: 10_000 } },
    // Most files wait on the clock (deadlines, budgets, child processes) rather than the
    // CPU: three at once keep two cores busy; two leave one idle while a file waits, and more
    // starve the integration servers (their checks time out).
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'shared', include: shared, isolate: false } },
      { extends: true, test: { name: 'alone', include: alone } },
      {
        extends: true,
        test: { name: 'last', include: last, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
