/**
 * `npm run bench`: starts the simulated web and drives userscout against it,
 * case by case, prints a table per case and writes
 * bench/results/<date>-<commit>.json. See bench/README.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES } from './cases/index.js';
import { createContext } from './context.js';
import { formatCase, formatComparison, formatRun } from './format.js';
import { parseOptions, USAGE } from './options.js';
import {
  type BenchResults,
  type CaseResult,
  currentCommit,
  describeMachine,
  readResults,
  resultsFileName,
} from './results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.compare && options.with) {
    process.stdout.write(`${formatComparison(readResults(options.compare), readResults(options.with))}\n`);
    return 0;
  }
  const baseline = options.compare ? readResults(options.compare) : undefined;
  const unknown = options.cases?.filter((id) => !CASES.some((c) => c.id === id)) ?? [];
  if (unknown.length > 0)
    throw new Error(`unknown case ${unknown.join(', ')}; cases are ${CASES.map((c) => c.id).join(', ')}`);
  const selected = CASES.filter((c) => !options.cases || options.cases.includes(c.id));

  const started = performance.now();
  const date = new Date();
  const machine = describeMachine();
  const commit = currentCommit(ROOT);
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s`;
  const log = (text: string) => process.stderr.write(`[${elapsed()}] ${text}\n`);
  const workDir = mkdtempSync(join(tmpdir(), 'userscout-bench-'));
  const ctx = createContext({
    quick: options.quick,
    seed: options.seed,
    serverOverrides: options.server,
    workDir,
    log,
  });
  const results: CaseResult[] = [];
  let failed = false;
  try {
    // Every simulated web at once, before anything is measured.
    const sims = new Map(
      selected.flatMap((c) => c.sims(options.quick)).map(([set, p]) => [`${set}:${p}`, [set, p] as const]),
    );
    await Promise.all([...sims.values()].map(([set, profile]) => ctx.sim(set, profile)));
    for (const c of selected) {
      try {
        const result = await c.run(ctx);
        results.push(result);
        process.stderr.write(`\n${formatCase(result)}\n\n`);
      } catch (error) {
        failed = true;
        log(
          `case ${c.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
    }
  } finally {
    await ctx.close();
    rmSync(workDir, { recursive: true, force: true });
  }

  const run: BenchResults = {
    version: 1,
    date: date.toISOString(),
    commit,
    quick: options.quick,
    seed: options.seed,
    serverSettings: options.server,
    machine,
    durationS: Math.round((performance.now() - started) / 1000),
    cases: results,
  };
  process.stdout.write(`${formatRun(run)}\n`);
  if (!options.noSave) {
    const dir = resolve(options.out ?? join(ROOT, 'bench', 'results'));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, resultsFileName(date, commit));
    writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
    process.stdout.write(`\nresults written to ${file}\n`);
  }
  if (baseline) process.stdout.write(`\n${formatComparison(baseline, run)}\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
