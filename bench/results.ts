/**
 * The shape of a benchmark run as printed and as written to
 * `bench/results/<date>-<commit>.json`, and its reading and naming.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

/** Which direction is an improvement, for the comparison. */
export type Better = 'lower' | 'higher' | 'none';

export interface Column {
  readonly key: string;
  readonly title: string;
  readonly better: Better;
  /** Decimals shown. @default 0 */
  readonly digits?: number;
}

export interface Row {
  readonly label: string;
  /** Keyed by column key; null when not measured. */
  readonly values: Readonly<Record<string, number | null>>;
}

export interface TargetCheck {
  readonly text: string;
  /** The measured figure the target is about. */
  readonly value: number | null;
  /** null when the figure could not be measured in this run. */
  readonly met: boolean | null;
}

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
  readonly targets: readonly TargetCheck[];
  readonly notes: readonly string[];
  /** Settings the case ran with that differ from the defaults, and why. */
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when the run started: other work on the machine skews figures. */
  readonly loadAtStart: number;
}

export interface BenchResults {
  readonly version: 1;
  readonly date: string;
  readonly commit: string;
  readonly quick: boolean;
  readonly seed: number;
  /** --server settings of the API cases, if any. */
  readonly serverSettings: Readonly<Record<string, string>>;
  readonly machine: Machine;
  readonly durationS: number;
  readonly cases: readonly CaseResult[];
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 1_073_741_824),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAtStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Short hash of HEAD, with `-dirty` when the work tree has changes; `unknown` outside git. */
export function currentCommit(cwd: string): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${hash}-dirty` : hash;
  } catch {
    return 'unknown';
  }
}

/** `<UTC date>-<commit>.json`, e.g. for 2025-01-31. Pure. */
export function resultsFileName(date: Date, commit: string): string {
  return `${date.toISOString().slice(0, 10)}-${commit}.json`;
}

export function readResults(path: string): BenchResults {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<BenchResults>;
  if (parsed.version !== 1 || !Array.isArray(parsed.cases)) {
    throw new Error(`${path} is not a userscout benchmark results file (version 1)`);
  }
  return parsed as BenchResults;
}
