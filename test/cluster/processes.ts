/**
 * userscout processes for the cluster tests: each a separate OS process
 * (`node --import tsx src/cli/main.ts serve --role R`), its JSON log lines
 * collected, ready when it logs that it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliEntry } from '../support/cli-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LogLine {
  readonly msg?: string;
  readonly [field: string]: unknown;
}

export interface UserscoutProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  readonly logs: LogLine[];
  readonly stderr: string[];
  /** Resolves with the exit code (null after a signal). */
  readonly exited: Promise<number | null>;
}

/**
 * The settings every test process needs to serve on loopback against the simulated web:
 * any free port, its own data folder and catalogue, the sim's addresses and CA, JSON logs at info.
 */
/** The USERSCOUT_METRICS_TOKEN of `simServeEnv`'s processes, and the headers a scrape sends. */
export const CLUSTER_METRICS_TOKEN = 'cluster-metrics-token';
export const CLUSTER_METRICS_HEADERS = { authorization: `Bearer ${CLUSTER_METRICS_TOKEN}` };

export function simServeEnv(parts: {
  readonly dataDir: string;
  readonly catalogueFile: string;
  readonly connectTo: readonly string[];
  readonly caFile: string;
  readonly timeoutMs: number;
}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    USERSCOUT_DATA_DIR: parts.dataDir,
    USERSCOUT_CATALOGUE: parts.catalogueFile,
    USERSCOUT_CONNECT_TO: parts.connectTo.join(','),
    USERSCOUT_CA_FILE: parts.caFile,
    USERSCOUT_REFUSE_PRIVATE: 'false',
    USERSCOUT_TIMEOUT_MS: String(parts.timeoutMs),
    USERSCOUT_LOG_LEVEL: 'info',
    USERSCOUT_METRICS_TOKEN: CLUSTER_METRICS_TOKEN,
  };
}

export async function startUserscout(
  name: string,
  role: 'api' | 'worker' | 'all',
  env: Record<string, string>,
  readyWithinMs = 120_000,
): Promise<UserscoutProcess> {
  const child = spawn(process.execPath, [...cliEntry(), 'serve', '--role', role], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));

  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    const listening = logs.find((l) => l.msg === 'userscout is listening');
    if (listening) return { name, child, url: String(listening.url), logs, stderr, exited };
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${name} did not start (exit ${child.exitCode}): ${stderr.join('').slice(-2000)} ${JSON.stringify(logs.slice(-5))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits for every start; those that started join `into` (so afterAll kills them whatever
 * failed), then the first failure is thrown.
 */
export async function startAll(
  starts: readonly Promise<UserscoutProcess>[],
  into: UserscoutProcess[],
): Promise<void> {
  const all = await Promise.allSettled(starts);
  for (const r of all) if (r.status === 'fulfilled') into.push(r.value);
  const failed = all.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** Kills a process (SIGKILL) and waits for it to be gone, bounded. */
export async function killHard(p: UserscoutProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await Promise.race([p.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
}

/** Waits until `predicate` holds, checking every `everyMs`, for at most `limitMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  limitMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
