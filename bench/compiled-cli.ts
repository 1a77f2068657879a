/**
 * `userscout search` as it ships: the compiled CLI (`node dist/cli/main.js`,
 * no tsx), run whole in a process of its own against a simulated web. Its peak
 * RSS is what a user's machine sees; the engine child of the other cases runs
 * under tsx, which alone adds tens of MB. Needs `npm run build` (dist/): when
 * dist/cli/main.js is missing, or older than a file of src/, nothing is measured
 * (a stale build would measure other code).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { builtIsFresh, PROJECT_ROOT } from '../src/build-freshness.js';
import type { SimHandle } from './context.js';
import { runToEnd } from './run-to-end.js';

const MAIN = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');

/** Says the process's own peak RSS and CPU on stderr as it exits (a preload, so the CLI is untouched). */
const REPORT_USAGE = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nbench-usage '+JSON.stringify({maxRssKb:u.maxRSS,cpuUs:u.userCPUTime+u.systemCPUTime})+'\\n')})`;

export interface CompiledCliRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly maxRssMb: number;
  /** Outcomes of the search, all statuses. */
  readonly outcomes: number;
  readonly hits: number;
}

/** Why the compiled CLI cannot be measured, or undefined when it can. */
export function compiledCliMissing(): string | undefined {
  if (!existsSync(MAIN)) return 'dist/cli/main.js is missing (run npm run build)';
  return builtIsFresh(MAIN) ? undefined : 'dist/ is older than src/ (run npm run build)';
}

/**
 * One `userscout search USERNAME --all --format json` against `sim`, without
 * latency memory: over the default selection, or only `platforms` (ids, each
 * given as `--platform ID`).
 */
export async function runCompiledCli(
  sim: SimHandle,
  username: string,
  platforms?: readonly string[],
): Promise<CompiledCliRun> {
  const args = [
    '--import',
    REPORT_USAGE,
    MAIN,
    'search',
    username,
    ...(platforms ?? []).flatMap((id) => ['--platform', id]),
    ...sim.connectTo.flatMap((rule) => ['--connect-to', rule]),
    '--ca-file',
    sim.caFile,
    '--all',
    '--format',
    'json',
    '--no-progress',
  ];
  const started = performance.now();
  const { code, out, err } = await runToEnd(args, { USERSCOUT_LATENCY_FILE: 'off' });
  const wallMs = performance.now() - started;
  const usageLine = /bench-usage (\{.*\})/.exec(err)?.[1];
  // Exit 3 is a search that ran with low coverage: still a whole search.
  if ((code !== 0 && code !== 3) || !usageLine)
    throw new Error(`compiled CLI failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' ')}`);
  const usage = JSON.parse(usageLine) as { maxRssKb: number; cpuUs: number };
  const reports = JSON.parse(out) as { results: { status: string }[] } | { results: { status: string }[] }[];
  const results = (Array.isArray(reports) ? reports : [reports]).flatMap((r) => r.results);
  return {
    wallMs,
    cpuMs: usage.cpuUs / 1000,
    maxRssMb: usage.maxRssKb / 1024,
    outcomes: results.length,
    hits: results.filter((r) => r.status === 'hit').length,
  };
}
