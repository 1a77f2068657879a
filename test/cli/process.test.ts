/**
 * The command line as a person meets it, each case a real process
 * (`node --import tsx src/cli/main.ts …`): one-line usage errors with exit 2, a
 * closed stdout ending quietly, a busy port ending `serve` at once, and
 * `serve --sim` answering searches from the simulated web.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEntry } from '../support/cli-entry.js';
import { pollUntilDone, postSearch, tempDir } from '../support/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Generous: tsx compiles the sources at start, on a machine shared with other work. */
const LIMIT_MS = 90_000;

interface Run {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** The exit code; null when it had to be killed after LIMIT_MS. */
  readonly exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [...cliEntry(), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (c: string) => stdout.push(c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  const killer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve(code);
    }),
  );
  return { child, stdout, stderr, exited };
}

async function run(args: string[], env: Record<string, string> = {}) {
  const r = start(args, env);
  const code = await r.exited;
  return { code, stdout: r.stdout.join(''), stderr: r.stderr.join('') };
}

describe('usage errors', () => {
  it('exit 2 with one line naming the problem and where to look, not the help', async () => {
    const cases: [string[], unknown][] = [
      [
        ['search', 'alice', '--frmat', 'json'],
        "userscout: unknown option '--frmat' (did you mean --format?) (see userscout search --help)",
      ],
      [
        ['search', 'alice', '--format', 'xml'],
        "userscout: option '--format <format>' argument 'xml' is invalid. Allowed choices are table, json, csv, html, pdf, graphml, graph-csv (see userscout search --help)",
      ],
      [['search'], "userscout: missing required argument 'names' (see userscout search --help)"],
      [
        ['search', 'alice', '--timeout', 'abc'],
        "userscout: option '--timeout <ms>' argument 'abc' is invalid. Expected a whole number from 100 to 120000 (see userscout search --help)",
      ],
      [
        ['search', 'alice', '--category', 'nope'],
        expect.stringMatching(
          /^userscout: --category nope is not one of social, .*, nsfw \(see userscout search --help\)$/,
        ),
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    expect(results.map((r) => ({ ...r, stderr: r.stderr.split('\n') }))).toEqual(
      cases.map(([, line]) => ({ code: 2, stdout: '', stderr: [line, ''] })),
    );
  }, 120_000);

  it('--help is not an error', async () => {
    const { code, stdout, stderr } = await run(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: userscout /);
    expect(stdout).toContain('serve [options]');
  }, 120_000);
});

describe('a closed stdout', () => {
  it('ends the command quietly with exit 0 (platforms | head -1)', async () => {
    const r = start(['platforms']);
    // The reader goes away before the first line is written, as `head -1` does after its line.
    r.child.stdout!.destroy();
    expect(await r.exited).toBe(0);
    expect(r.stderr.join('')).toBe('');
  }, 120_000);
});

describe('userscout serve', () => {
  const running: Run[] = [];
  afterAll(async () => {
    for (const r of running) {
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
      await r.exited;
    }
  });

  it('on a busy port exits 1 at once with one line', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const r = start(['serve', '--port', String(port), '--data-dir', tempDir()]);
      running.push(r);
      // Before the fix it printed EADDRINUSE and kept running: killed at LIMIT_MS, the code is null.
      expect(await r.exited).toBe(1);
      expect(r.stderr.join('')).toBe(
        `userscout: port ${port} on 127.0.0.1 is in use (EADDRINUSE); choose another with --port or PORT\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 120_000);

  it('--sim serves searches of the simulated web, and says what to try', async () => {
    const r = start(['serve', '--sim', '--port', '0', '--data-dir', tempDir()]);
    running.push(r);
    const deadline = Date.now() + LIMIT_MS;
    let url: string | undefined;
    while (!url) {
      const listening = r.stdout
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; url?: string })
        .find((l) => l.msg === 'userscout is listening');
      url = listening?.url;
      if (!url && (r.child.exitCode !== null || Date.now() > deadline))
        throw new Error(`serve --sim did not start: ${r.stderr.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(r.stderr.join('')).toContain(
      `try: curl -s -X POST ${url}/api/search -H 'content-type: application/json' -d '{"username":"scoutdemo"}'`,
    );

    // One category keeps it light on a shared machine; the wiring is the same for all.
    const started = await postSearch(url, { username: 'scoutdemo', categories: ['coding'] });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(url, started.body.queryId, '&include=all', 250, 60_000);
    expect(done.body.status).toBe('completed');
    const results = done.body.results as {
      status: string;
      reason?: string;
      evidence: { transport?: string };
    }[];
    expect(results.filter((o) => o.status === 'hit').length).toBeGreaterThan(0);
    expect(results.filter((o) => o.reason === 'blocked_destination')).toEqual([]);
    // Its sites that refuse a handshake not a browser's are read through impersonate, past the defence.
    const impersonated = results.filter((o) => o.evidence.transport === 'impersonate');
    expect(impersonated.length).toBeGreaterThan(0);
    expect(impersonated.filter((o) => o.status === 'unknown')).toEqual([]);

    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
  }, 180_000);
});
