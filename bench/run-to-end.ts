/**
 * A one-off process of the benchmark (the compiled CLI, the bare client), run to its end
 * with what it printed collected: measured whole by the process itself, not over IPC.
 */
import { spawn } from 'node:child_process';

export interface Ended {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Longest a one-off process may run before it is killed (its figures then fail the case, not hang the bench). */
const DEADLINE_MS = 10 * 60_000;

/** Runs `node ...args` with `env` added to this process's environment, until its output closes. */
export async function runToEnd(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<Ended> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: DEADLINE_MS,
    killSignal: 'SIGKILL',
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, out, err };
}
