/**
 * `userscout search` in process, against the simulated web: what goes to stdout
 * and stderr and in which order (each table, then its summary; a heading per name),
 * rows as they are found on a terminal, colour, the JSON shape shared with the API,
 * and the exit code when too few platforms answered.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result, SearchResponse } from '../../src/api/schemas.js';
import { lookalikeNames } from '../../src/catalogue/lookalike-names.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import { EXIT_LOW_COVERAGE } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/io.js';
import { runSearch, type SearchCommandOptions } from '../../src/cli/search.js';
import { UserscoutError } from '../../src/errors.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { pollUntilDone, postSearch, startService, tempDir } from '../support/service.js';

// The API validates with Ajv's formats; TypeBox checks this one only once told how.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));

/** Everything written, in order, each line marked with its stream. */
function capture(options: { terminal?: boolean; colour?: boolean; onOut?: (text: string) => void } = {}) {
  const lines: string[] = [];
  const io: Io = {
    out: (text) => {
      for (const l of text.split('\n')) lines.push(`out ${l}`);
      options.onOut?.(text);
    },
    write: (text) => {
      for (const l of text.replace(/\r?\n$/, '').split(/\r?\n/)) lines.push(`out ${l}`);
      options.onOut?.(text);
    },
    err: (text) => {
      for (const l of text.split('\n')) lines.push(`err ${l}`);
    },
    stderr: new PassThrough(),
    outIsTerminal: options.terminal ?? false,
    colour: options.colour ?? false,
  };
  return { io, lines, out: () => lines.filter((l) => l.startsWith('out ')).map((l) => l.slice(4)) };
}

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const specs: PlatformSpec[] = [
  entry('Alpha', { known: { claimed: ['alice', 'bob'], unclaimed: ['nobody-here-7'] } }),
  entry('Bravo'),
  entry('Charlie', { known: { claimed: ['bob'], unclaimed: ['nobody-here-7'] } }),
];
// Hosts whose connections go to a closed port: they can never answer.
const unreachable: PlatformSpec[] = [entry('Dead One'), entry('Dead Two')];
// A platform that answers (a miss) only once the test lets it.
const gated: PlatformSpec = entry('Gated', {
  home: 'http://gated.test/',
  profile: 'http://gated.test/u/{username}',
});

type Compared = { responseTime: number; evidence: { control?: string } };

/**
 * An outcome without what differs from run to run: its time, the bytes read, and its
 * control check's text (a random name at its own time), replaced by `control`.
 */
function sameAnswer(r: Compared, control: boolean | undefined) {
  const { control: _control, ...evidence } = r.evidence;
  return {
    ...r,
    responseTime: 0,
    evidence: { ...evidence, bytesRead: 0, ...(control === undefined ? {} : { control }) },
  };
}

const ID = '0b6a3c1e-8f7d-4c2b-9a1e-5d4c3b2a1f00';

describe('userscout search', () => {
  const dir = tempDir();
  const catalogue = catalogueOf(specs);
  const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields);
  const sim = new SimWeb({ routes: emulation.routes });
  const caFile = join(dir, 'sim-ca.pem');
  const file = (name: string, entries: PlatformSpec[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ platforms: entries }));
    return path;
  };
  const reachableFile = file('reachable.json', specs);
  let releaseGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    releaseGate = resolve;
  });
  const gateServer: Server = createServer((_request, response) => {
    void gate.then(() => response.writeHead(404).end('no such user'));
  });
  let deadRules: string[] = [];
  let gateRule = '';
  const latencyFile = join(dir, 'latencies.json');
  const env = { USERSCOUT_RETRIES: '0', USERSCOUT_LATENCY_FILE: latencyFile };

  const options = (extra: SearchCommandOptions = {}): SearchCommandOptions => ({
    connectTo: [...deadRules, gateRule, ...sim.connectTo],
    caFile,
    progress: false,
    timeout: 10_000,
    ...extra,
  });

  beforeAll(async () => {
    await sim.start();
    writeFileSync(caFile, sim.caCert);
    const dead = await closedPort();
    deadRules = unreachable.map((s) => `${new URL(s.home).hostname}:443:127.0.0.1:${dead}`);
    await new Promise<void>((resolve) => gateServer.listen(0, '127.0.0.1', resolve));
    gateRule = `gated.test:80:127.0.0.1:${(gateServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    releaseGate();
    gateServer.closeAllConnections();
    await new Promise((resolve) => gateServer.close(resolve));
    await sim.stop();
  });

  it('refuses a name that is not well-formed text before any request, as the API does', async () => {
    const { io } = capture();
    const before = sim.requestCount;
    await expect(
      runSearch(['\ud800abc'], options({ catalogue: reachableFile }), io, env),
    ).rejects.toMatchObject({
      code: 'invalid_username',
      message: expect.stringMatching(/is not valid text: it holds half of a character \(U\+D800/),
    });
    expect(sim.requestCount).toBe(before);
  });

  it('prints the table, then the summary after it, and exits 0', async () => {
    const { io, lines } = capture();
    const code = await runSearch(['alice'], options({ catalogue: reachableFile }), io, env);
    expect(code).toBe(0);
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^out PLATFORM {2}STATUS {2}TIME +URL$/),
      expect.stringMatching(/^out Alpha +hit +\d+ ms +https:\/\/alpha\.test\/u\/alice$/),
      expect.stringMatching(/^out Bravo +hit +\d+ ms +https:\/\/bravo\.test\/u\/alice$/),
    ]);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      /^out alice: 2 hits among the 3 platforms that answered; 3 platforms in \d+\.\d s$/,
    );
  });

  it('gives each name a heading, its table and its summary, in that order, to a pipe', async () => {
    const { io, lines } = capture();
    await runSearch(['alice', 'bob', 'nobody-here-7'], options({ catalogue: reachableFile }), io, env);
    const shape = lines.map((l) =>
      l
        .replace(/\d+ ms/, 'T ms')
        .replace(/ +/g, ' ')
        .replace(/in \d+\.\d s$/, 'in S s'),
    );
    expect(shape).toEqual([
      'out == alice ==',
      'out PLATFORM STATUS TIME URL',
      'out Alpha hit T ms https://alpha.test/u/alice',
      'out Bravo hit T ms https://bravo.test/u/alice',
      'out alice: 2 hits among the 3 platforms that answered; 3 platforms in S s',
      'out == bob ==',
      'out PLATFORM STATUS TIME URL',
      'out Alpha hit T ms https://alpha.test/u/bob',
      'out Charlie hit T ms https://charlie.test/u/bob',
      'out bob: 2 hits among the 3 platforms that answered; 3 platforms in S s',
      'out == nobody-here-7 ==',
      'out nobody-here-7: no hits among the 3 platforms that answered; 3 platforms in S s',
    ]);
  });

  it("remembers each platform's answer time between runs (the next search starts the slowest first)", async () => {
    writeFileSync(latencyFile, JSON.stringify({ version: 1, latencies: { alpha: 100_000, elsewhere: 7 } }));
    const code = await runSearch(['alice'], options({ catalogue: reachableFile }), capture().io, env);
    expect(code).toBe(0);
    const { latencies } = JSON.parse(readFileSync(latencyFile, 'utf8'));
    expect(Object.keys(latencies).sort()).toEqual(['alpha', 'bravo', 'charlie', 'elsewhere']);
    // Averaged with what was remembered: one run moves a figure halfway.
    expect(latencies.alpha).toBeGreaterThanOrEqual(50_000);
    expect(latencies.alpha).toBeLessThan(60_000);
    expect(latencies.elsewhere).toBe(7);
    expect(latencies.bravo).toBeLessThan(10_000);
  });

  it('says once, at start, that --ca-file keeps the browser off, and its platform reads unknown for it', async () => {
    const browsing = file('browsing.json', [specs[0]!, { ...specs[1]!, transport: 'browser' }]);
    const { io, lines } = capture();
    const code = await runSearch(
      ['alice'],
      options({ catalogue: browsing, format: 'json', all: true }),
      io,
      env,
    );
    expect(code).toBe(0);
    const warnings = lines.filter((l) => l.startsWith('err warning:'));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^err warning: browser transport off: the browser transport cannot trust an extra CA \(--ca-file\).*; 1 platform naming it will read unknown \(needs_browser\)$/,
      ),
    ]);
    // Said before any result is written.
    expect(lines.indexOf(warnings[0]!)).toBeLessThan(lines.findIndex((l) => l.startsWith('out ')));
    const results = JSON.parse(
      lines
        .filter((l) => l.startsWith('out '))
        .map((l) => l.slice(4))
        .join('\n'),
    ).results as { platform: string; status: string; reason?: string }[];
    expect(results.find((r) => r.platform === 'Bravo')).toMatchObject({
      status: 'unknown',
      reason: 'needs_browser',
    });
    expect(results.find((r) => r.platform === 'Alpha')).toMatchObject({ status: 'hit' });
    // Without a platform that needs it, nothing is said (certificates not checked: browser.test.ts).
    const quiet = capture();
    await runSearch(['alice'], options({ catalogue: reachableFile, format: 'json' }), quiet.io, env);
    expect(quiet.lines.filter((l) => l.startsWith('err warning:'))).toEqual([]);
  });

  it('narrows to platforms with a tag (--tag, any case) or to the curated top set (--top)', async () => {
    // The same hosts under other names: GitHub's id is in the top set.
    const tagged = file('tagged.json', [
      { ...specs[0]!, name: 'GitHub', tags: ['git'] },
      { ...specs[1]!, tags: ['Git', 'photos'] },
      specs[2]!,
    ]);
    const platformsOf = async (extra: SearchCommandOptions) => {
      const c = capture();
      const code = await runSearch(
        ['alice'],
        options({ catalogue: tagged, format: 'json', all: true, ...extra }),
        c.io,
        env,
      );
      expect(code).toBe(0);
      return (JSON.parse(c.out().join('\n')).results as { platform: string }[]).map((r) => r.platform).sort();
    };
    expect(await platformsOf({ tag: ['GIT'] })).toEqual(['Bravo', 'GitHub']);
    expect(await platformsOf({ tag: ['photos', 'nothing'] })).toEqual(['Bravo']);
    expect(await platformsOf({ top: true })).toEqual(['GitHub']);
    await expect(platformsOf({ tag: ['nothing'] })).rejects.toThrow(/no platform matches/);
  });

  it('on a terminal prints each hit as it is found, before the search ends', async () => {
    // Gated answers only once a row is out: printed at the end, it would time out instead.
    const withGate = file('gated.json', [...specs, gated]);
    const { io, lines } = capture({
      terminal: true,
      onOut: (text) => {
        if (text.includes('hit')) releaseGate();
      },
    });
    const code = await runSearch(['alice'], options({ catalogue: withGate, timeout: 20_000 }), io, env);
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(/^out alice: 2 hits among the 4 platforms that answered; 4 platforms in/);
    expect(lines.filter((l) => / hit /.test(l))).toHaveLength(2);
  });

  it('colours the status on a colour terminal, and only there', async () => {
    const coloured = capture({ terminal: true, colour: true });
    await runSearch(['alice'], options({ catalogue: reachableFile, all: true }), coloured.io, env);
    const rows = coloured.out().filter((l) => /^(Alpha|Charlie) /.test(l));
    expect(rows.find((l) => l.startsWith('Alpha'))).toContain('\x1b[32mhit\x1b[39m');
    expect(rows.find((l) => l.startsWith('Charlie'))).toContain('\x1b[2mmiss\x1b[22m');

    const plain = capture({ terminal: true, colour: false });
    await runSearch(['alice'], options({ catalogue: reachableFile, all: true }), plain.io, env);
    expect(plain.out().join('\n')).not.toContain('\x1b[');
    expect(plain.out().filter((l) => /^(Alpha|Bravo|Charlie) /.test(l))).toHaveLength(3);
  });

  it('exits 3 and says how many platforms could not be reached when too few answered', async () => {
    const { io, lines } = capture();
    const code = await runSearch(
      ['alice'],
      options({ catalogue: file('mostly-dead.json', [specs[0]!, ...unreachable]), timeout: 2_000 }),
      io,
      env,
    );
    expect(code).toBe(EXIT_LOW_COVERAGE);
    const summary = lines.findIndex((l) => l.startsWith('out alice: '));
    expect(lines[summary]).toMatch(
      /^out alice: 1 hit among the 1 platform that answered; 2 could not be reached \(connection 2\); 3 platforms in /,
    );
    expect(lines[summary + 1]).toBe(
      'err alice: warning: Only 1 of 3 platforms answered; 2 could not be reached or could not tell (connection 2). A missing hit on those proves nothing.',
    );
  });

  it('exits 0 when enough answered, naming those that could not be reached', async () => {
    const { io, lines } = capture();
    const code = await runSearch(
      ['alice'],
      options({ catalogue: file('some-dead.json', [...specs, unreachable[0]!]), timeout: 2_000 }),
      io,
      env,
    );
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(
      /^out alice: 2 hits among the 3 platforms that answered; 1 could not be reached \(connection 1\); 4 platforms in /,
    );
  });

  it('the coverage threshold is a setting', async () => {
    const { io } = capture();
    const code = await runSearch(
      ['alice'],
      options({ catalogue: file('threshold.json', [specs[0]!, ...unreachable]), timeout: 2_000 }),
      io,
      { ...env, USERSCOUT_COVERAGE_WARNING_PERCENT: '30' },
    );
    expect(code).toBe(0);
  });

  describe('--format json', () => {
    it('prints the object GET /api/search?id= returns: hits only, or every outcome with --all', async () => {
      const hitsOnly = capture();
      await runSearch(['alice'], options({ catalogue: reachableFile, format: 'json' }), hitsOnly.io, env);
      const out = hitsOnly.out();
      const json = JSON.parse(out.join('\n'));
      expect(Value.Check(SearchResponse, [Result], json)).toBe(true);
      expect(json.results.map((r: { platform: string }) => r.platform)).toEqual(['Alpha', 'Bravo']);
      expect(json.progress).toEqual({
        checked: 3,
        total: 3,
        hits: 2,
        answered: 3,
        unknown: 0,
        errors: 0,
        invalid: 0,
        queued: false,
      });
      expect(json.coverage).toBe(1);
      expect(json.warning).toBeUndefined();
      // stdout is JSON only; the summary went to stderr.
      expect(hitsOnly.lines.filter((l) => l.startsWith('err '))).toEqual([
        expect.stringMatching(/^err alice: 2 hits among the 3 platforms that answered/),
      ]);

      const all = capture();
      await runSearch(
        ['alice'],
        options({ catalogue: reachableFile, format: 'json', all: true }),
        all.io,
        env,
      );
      const every = JSON.parse(all.out().join('\n'));
      expect(every.results.map((r: { platform: string; status: string }) => [r.platform, r.status])).toEqual([
        ['Alpha', 'hit'],
        ['Bravo', 'hit'],
        ['Charlie', 'miss'],
      ]);

      // The same search through the API: the same fields, the same results.
      const running = await startService(sim, catalogue, { dataDir: tempDir() });
      try {
        const started = await postSearch(running.url, { username: 'alice' });
        const api = (await pollUntilDone(running.url, started.body.queryId, '&include=all')).body;
        expect(Object.keys(every).sort()).toEqual(Object.keys(api).sort());
        expect(Object.keys(every.progress).sort()).toEqual(Object.keys(api.progress).sort());
        // Each side checked its own control (a random name, at its own time): only that one was made.
        const comparable = (r: Compared) => sameAnswer(r, 'control' in r.evidence);
        expect(every.results.map(comparable)).toEqual(api.results.map(comparable));
      } finally {
        await running.service.close();
      }
    });

    it('--server runs the search on a service and prints what a local search prints', async () => {
      const running = await startService(sim, catalogue, { dataDir: tempDir() });
      try {
        const local = capture();
        const localCode = await runSearch(
          ['alice'],
          options({ catalogue: reachableFile, format: 'json', all: true }),
          local.io,
          env,
        );
        const remote = capture();
        const remoteCode = await runSearch(
          ['alice'],
          { server: running.url, format: 'json', all: true, progress: false },
          remote.io,
          env,
        );
        expect(remoteCode).toBe(localCode);
        // The service names the control check behind each hit; which control, and when, differ by run.
        const comparable = (r: Compared) => sameAnswer(r, undefined);
        const a = JSON.parse(local.out().join('\n'));
        const b = JSON.parse(remote.out().join('\n'));
        expect(b.results.map(comparable)).toEqual(a.results.map(comparable));
        expect(b.progress).toEqual(a.progress);
        expect(b.coverage).toBe(a.coverage);
        // A table too: the same rows but for the times.
        const table = (lines: string[]) =>
          lines.map((l) =>
            l
              .replace(/\d+ ms/, 'T')
              .replace(/ in \d+\.\d s$/, '')
              .replace(/ +/g, ' '),
          );
        const localTable = capture();
        await runSearch(['alice'], options({ catalogue: reachableFile, all: true }), localTable.io, env);
        const remoteTable = capture();
        await runSearch(['alice'], { server: running.url, all: true, progress: false }, remoteTable.io, env);
        expect(table(remoteTable.lines)).toEqual(table(localTable.lines));
      } finally {
        await running.service.close();
      }
    });

    it('--server keeps a platform once: a later answer from the service replaces the first', async () => {
      const row = (id: string, status: string, extra = {}) => ({
        platform: id.toUpperCase(),
        platformId: id,
        category: 'social',
        url: `https://${id}.test/u/alice`,
        status,
        responseTime: 5,
        evidence: { rule: status === 'hit' ? 'status 200' : 'timeout', attempts: 1 },
        ...extra,
      });
      const frame = (event: string, data: unknown, id?: number) =>
        `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      const fake = createServer((request, response) => {
        const send = (body: unknown, status = 200) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        if (request.url?.startsWith('/api/platforms')) {
          const platform = (id: string) => ({
            name: id.toUpperCase(),
            id,
            category: 'social',
            url: `https://${id}.test/`,
            enabled: true,
            nsfw: false,
            tags: [],
          });
          send({ platforms: [platform('p1'), platform('p2')], total: 2 });
        } else if (request.method === 'POST') {
          request.resume();
          send({ queryId: ID, status: 'running', totalPlatforms: 2, estimatedTime: 1 }, 202);
        } else if (request.url?.endsWith('/events')) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(frame('result', row('p1', 'hit'), 1));
          response.write(frame('result', row('p2', 'error', { reason: 'timeout' }), 2));
          // p1's profile links to p2's: the service checked p2 again and stored the later answer.
          response.write(frame('result', row('p2', 'hit', { responseTime: 7 }), 3));
          response.end(frame('done', { status: 'completed' }));
        } else send({ error: 'not found', code: 'not_found' }, 404);
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      try {
        const remote = capture();
        await runSearch(
          ['alice'],
          { server: url, format: 'json', all: true, progress: false },
          remote.io,
          env,
        );
        const report = JSON.parse(remote.out().join('\n'));
        expect(
          report.results.map((r: { platformId: string; status: string }) => [r.platformId, r.status]),
        ).toEqual([
          ['p1', 'hit'],
          ['p2', 'hit'],
        ]);
        expect(report.progress.hits).toBe(2);
        expect(report.progress.checked).toBe(2);
      } finally {
        fake.closeAllConnections();
        await new Promise((resolve) => fake.close(resolve));
      }
    });

    it('--server with a bad key ends at once with a usage error that does not print the key', async () => {
      const running = await startService(sim, catalogue, { dataDir: tempDir() });
      try {
        const error = await runSearch(
          ['alice'],
          { server: running.url, key: 'us_secret_value_123', progress: false },
          capture().io,
          env,
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UserscoutError);
        expect((error as UserscoutError).status).toBe(401);
        expect((error as UserscoutError).message).toMatch(/API key/);
        expect((error as UserscoutError).message).not.toContain('us_secret_value_123');
      } finally {
        await running.service.close();
      }
    });

    it('--format html writes the same self-contained report as the service, one file per name', async () => {
      const out = join(dir, 'report.html');
      const { io, lines } = capture();
      const code = await runSearch(
        ['alice', 'bob'],
        options({ catalogue: reachableFile, format: 'html', output: out }),
        io,
        env,
      );
      expect(code).toBe(0);
      expect(lines.filter((l) => l.startsWith('out '))).toEqual([]);
      for (const name of ['alice', 'bob']) {
        const html = readFileSync(join(dir, `report-${name}.html`), 'utf8');
        expect(html).toMatch(/^<!DOCTYPE html>/);
        expect(html).toContain(`<h1>userscout report: ${name}</h1>`);
        expect(html).toMatch(/default-src 'none'/);
        expect(html).not.toMatch(/<script/i);
      }
      const single = capture();
      await runSearch(['alice'], options({ catalogue: reachableFile, format: 'html' }), single.io, env);
      expect(single.out()[0]).toBe('<!DOCTYPE html>');
      await expect(
        runSearch(['alice'], options({ catalogue: reachableFile, output: out }), capture().io, env),
      ).rejects.toThrow(/--output needs --format json, csv, html, pdf, graphml, graph-csv/);
    });

    it('with --variants, checks each name and then its lookalike names, as many as the setting allows', async () => {
      const { io, out } = capture();
      await runSearch(['alice'], options({ catalogue: reachableFile, format: 'json', variants: true }), io, {
        ...env,
        USERSCOUT_MAX_VARIANTS: '2',
      });
      const json = JSON.parse(out().join('\n'));
      expect(json.map((s: { username: string }) => s.username)).toEqual([
        'alice',
        ...lookalikeNames('alice', 2).map((v) => v.username),
      ]);
      for (const s of json) expect(Value.Check(SearchResponse, [Result], s)).toBe(true);
    });

    it('prints an array of those objects for several names', async () => {
      const { io, out } = capture();
      await runSearch(['alice', 'bob'], options({ catalogue: reachableFile, format: 'json' }), io, env);
      const json = JSON.parse(out().join('\n'));
      expect(json.map((s: { username: string }) => s.username)).toEqual(['alice', 'bob']);
      for (const s of json) expect(Value.Check(SearchResponse, [Result], s)).toBe(true);
    });
  });
});
