/**
 * Operator sessions against the simulated web: a site behind a login wall reads hit
 * and miss with its session and unknown/session_required without one, through the
 * engine (each transport), the service and the CLI. The session goes to its
 * platform's check host only (not on a redirect elsewhere, not to another platform),
 * and its value never appears in a log line, an API answer, a report or an error.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../src/catalogue/platform.js';
import type { PlatformSpec } from '../src/catalogue/schema.js';
import { runSearch } from '../src/cli/search.js';
import { loadConfig } from '../src/config.js';
import type { Engine } from '../src/engine/engine.js';
import { createService, type Service } from '../src/service.js';
import type { SimRequest } from '../src/sim/behaviour.js';
import { SESSION_COOKIE, simSessionValue } from '../src/sim/defence.js';
import { SimWeb } from '../src/sim/server.js';
import { createTestCa } from '../src/sim/tls.js';
import { hasBrowser } from './support/browser-guard.js';
import { catalogueOf, entry, platformNamed } from './support/catalogue.js';
import { captureIo } from './support/cli-io.js';
import { engineFor } from './support/engine.js';
import { json, pollUntilDone, postSearch, readEvents, tempDir } from './support/service.js';
import { SharedBrowser } from './support/shared-browser.js';

const ca = await createTestCa();

/** A header session's value: distinctive, so a grep finds any copy of it. */
const TOKEN = 'tok-9QX7-never-shown-4411';

const HOSTS = {
  walled: 'walled.test',
  walledImp: 'walled-imp.test',
  walledBrowser: 'walled-browser.test',
  hopper: 'hopper.test',
  elsewhere: 'elsewhere.test',
  plain: 'plain.test',
  challenged: 'challenged.test',
} as const;

/** Every request's host and what it carried of a session, in order. */
const seen: { host: string; cookie: string; token: string }[] = [];

function record(req: SimRequest): void {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join('; ') : (value ?? '');
  };
  seen.push({ host: req.host, cookie: header('cookie'), token: header('x-session-token') });
}

/** Where only `alice` has an account: her page with its profile marker, 404 for anyone else. */
function profiles(host: string, defence?: 'session') {
  return {
    host,
    ...(defence ? { defence } : {}),
    handle: (req: SimRequest) => {
      record(req);
      const name = /^\/u\/([^/?]+)/.exec(req.path)?.[1];
      if (name === undefined) return undefined;
      return name === 'alice'
        ? { kind: 'respond' as const, status: 200, body: '<html><h1 class="profile">alice</h1></html>' }
        : { kind: 'respond' as const, status: 404, body: '<html><title>Not found</title></html>' };
    },
  };
}

/** A site that sends every profile to another host. */
const hopper = {
  host: HOSTS.hopper,
  handle: (req: SimRequest) => {
    record(req);
    return {
      kind: 'respond' as const,
      status: 302,
      headers: { location: `https://${HOSTS.elsewhere}${req.path}` },
      body: '',
    };
  },
};

function walled(name: string, host: string, extra: Partial<PlatformSpec> = {}): PlatformSpec {
  return entry(name, {
    home: `https://${host}/`,
    profile: `https://${host}/u/{username}`,
    session: 'required',
    detect: { exists: [{ status: [200] }, { text: 'class="profile"' }], missing: [{ status: [404] }] },
    ...extra,
  });
}

const SPECS: PlatformSpec[] = [
  walled('Walled', HOSTS.walled),
  walled('Walled Imp', HOSTS.walledImp, { transport: 'impersonate' }),
  entry('Hopper', {
    home: `https://${HOSTS.hopper}/`,
    profile: `https://${HOSTS.hopper}/u/{username}`,
    check: { redirects: 'follow' },
  }),
  entry('Plain', { home: `https://${HOSTS.plain}/`, profile: `https://${HOSTS.plain}/u/{username}` }),
];

/** A PDF's text, as a reader would copy it: its streams are compressed, so its bytes prove nothing. */
function pdfText(file: string): string {
  return execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
}

describe('operator sessions', () => {
  const sim = new SimWeb({
    ca,
    routes: [
      profiles(HOSTS.walled, 'session'),
      profiles(HOSTS.walledImp, 'session'),
      profiles(HOSTS.walledBrowser, 'session'),
      hopper,
      profiles(HOSTS.elsewhere),
      profiles(HOSTS.plain),
      { ...profiles(HOSTS.challenged), defence: 'challenge' as const },
    ],
  });
  const dir = tempDir('userscout-sessions-');
  let catalogue: Catalogue;
  /** The session values the sim accepts: secrets as an operator would copy them. */
  let secrets: string[] = [];
  let sessionsJson = '';
  const platform = (name: string) => platformNamed(catalogue, name);

  beforeAll(async () => {
    await sim.start();
    catalogue = catalogueOf(SPECS);
    const cookie = (host: string) => ({ cookies: { [SESSION_COOKIE]: simSessionValue(host) } });
    secrets = [
      simSessionValue(HOSTS.walled),
      simSessionValue(HOSTS.walledImp),
      simSessionValue(HOSTS.walledBrowser),
      TOKEN,
    ];
    sessionsJson = JSON.stringify({
      Walled: cookie(HOSTS.walled),
      'Walled Imp': cookie(HOSTS.walledImp),
      Hopper: { cookies: { sid: simSessionValue(HOSTS.walled) }, headers: { 'X-Session-Token': TOKEN } },
    });
  });
  afterAll(() => sim.stop());

  /** Asserts no text holds any session value. */
  function secretFree(label: string, text: string): void {
    for (const secret of secrets) {
      if (text.includes(secret)) throw new Error(`${label} holds a session value`);
    }
  }

  describe('through the engine', () => {
    let engine: Engine;
    let bare: Engine;
    // The browser tests' engines share one Chromium: they are about what a session reads, not a browser's life.
    const browsers = new SharedBrowser();
    beforeAll(() => {
      // A whole deadline of its own: this is about what a session reads, and a loaded suite can
      // hold a first handshake past the support's 3 s.
      engine = engineFor(sim, catalogue, { sessions: sessionsJson, retries: 0, timeoutMs: 10_000 });
      bare = engineFor(sim, catalogue, { retries: 0, timeoutMs: 10_000 });
    });
    afterAll(async () => {
      await engine.close();
      await bare.close();
      await browsers.close();
    });

    for (const name of ['Walled', 'Walled Imp'])
      it(`reads ${name} with its session: hit for its account, miss for a random name`, async () => {
        const [hit, miss] = await Promise.all([
          engine.check(platform(name), 'alice'),
          engine.check(platform(name), 'zz-random-name-4829'),
        ]);
        expect(hit).toMatchObject({ status: 'hit', evidence: { httpStatus: 200 } });
        expect(miss).toMatchObject({ status: 'miss', evidence: { httpStatus: 404 } });
        secretFree('outcomes', JSON.stringify([hit, miss]));
      });

    it.skipIf(!hasBrowser)(
      'reads a browser platform with its session cookie, and without one not at all',
      async () => {
        // Chromium cannot trust the sim's CA (browser.ts): this engine accepts any certificate.
        const paged = catalogueOf([walled('Walled Browser', HOSTS.walledBrowser, { transport: 'browser' })]);
        const session = { cookies: { [SESSION_COOKIE]: simSessionValue(HOSTS.walledBrowser) } };
        const browsing = browsers.engineFor(sim, paged, {
          sessions: JSON.stringify({ 'Walled Browser': session }),
          insecureTls: true,
          retries: 0,
          // Chromium's first launch takes seconds.
          timeoutMs: 30_000,
        });
        const without = browsers.engineFor(sim, paged, { insecureTls: true, retries: 0 });
        const [walledBrowser] = paged.platforms;
        const hit = await browsing.check(walledBrowser!, 'alice');
        const miss = await browsing.check(walledBrowser!, 'zz-random-name-4829');
        expect(hit, JSON.stringify(hit)).toMatchObject({
          status: 'hit',
          evidence: { transport: 'browser' },
        });
        expect(miss).toMatchObject({ status: 'miss' });
        secretFree('outcomes', JSON.stringify([hit, miss]));
        expect(await without.check(walledBrowser!, 'alice')).toMatchObject({
          status: 'unknown',
          reason: 'session_required',
        });
      },
      60_000,
    );

    it.skipIf(!hasBrowser)(
      'escalates to the browser with a cookie session, never with a header session',
      async () => {
        const challenged = catalogueOf([
          entry('Challenged', {
            home: `https://${HOSTS.challenged}/`,
            profile: `https://${HOSTS.challenged}/u/{username}`,
          }),
        ]);
        const [platform] = challenged.platforms;
        const escalating = (given: unknown) =>
          browsers.engineFor(sim, challenged, {
            sessions: JSON.stringify({ Challenged: given }),
            escalations: 2,
            insecureTls: true,
            retries: 0,
            timeoutMs: 30_000,
          });
        const byCookie = escalating({ cookies: { sid: TOKEN } });
        const byHeader = escalating({ headers: { 'X-Session-Token': TOKEN } });
        const escalated = await byCookie.check(platform!, 'alice');
        expect(escalated, JSON.stringify(escalated)).toMatchObject({
          status: 'hit',
          evidence: { transport: 'browser' },
        });
        seen.length = 0;
        const held = await byHeader.check(platform!, 'alice');
        expect(held).toMatchObject({
          status: 'unknown',
          reason: 'waf',
          evidence: { transport: 'impersonate' },
        });
        // Sent by http, then impersonate; no third request, through a browser.
        expect(seen.filter((s) => s.host === HOSTS.challenged).length).toBe(2);
      },
      90_000,
    );

    it('answers unknown/session_required without one, sending nothing', async () => {
      const before = seen.length;
      for (const name of ['Walled', 'Walled Imp']) {
        const outcome = await bare.check(platform(name), 'alice');
        expect(outcome).toMatchObject({
          status: 'unknown',
          reason: 'session_required',
          responseTime: 0,
          evidence: { attempts: 0 },
        });
      }
      expect(seen.length).toBe(before);
    });

    it('a wrong session meets the login wall, which proves nothing', async () => {
      const wrong = engineFor(sim, catalogue, {
        sessions: JSON.stringify({ Walled: { cookies: { [SESSION_COOKIE]: 'not-the-session' } } }),
        retries: 0,
      });
      try {
        expect(await wrong.check(platform('Walled'), 'alice')).toMatchObject({ status: 'unknown' });
      } finally {
        await wrong.close();
      }
    });

    it('sends a session to its check host only: not on a redirect to another host, not to another platform', async () => {
      seen.length = 0;
      await engine.check(platform('Hopper'), 'alice');
      await engine.check(platform('Plain'), 'alice');
      await engine.check(platform('Walled'), 'alice');
      const hops = seen.filter((s) => s.host === HOSTS.hopper);
      expect(hops.length).toBeGreaterThan(0);
      for (const hop of hops) {
        expect(hop.token).toBe(TOKEN);
        expect(hop.cookie).toContain(`sid=${simSessionValue(HOSTS.walled)}`);
      }
      const elsewhere = seen.filter((s) => s.host === HOSTS.elsewhere);
      expect(elsewhere.length).toBeGreaterThan(0);
      const others = seen.filter((s) => s.host !== HOSTS.hopper && s.host !== HOSTS.walled);
      for (const other of others) secretFree(`request to ${other.host}`, JSON.stringify(other));
      // Walled got its own cookie, not Hopper's header.
      const walledHops = seen.filter((s) => s.host === HOSTS.walled);
      expect(walledHops.length).toBeGreaterThan(0);
      for (const hop of walledHops) {
        expect(hop.cookie).toBe(`${SESSION_COOKIE}=${simSessionValue(HOSTS.walled)}`);
        expect(hop.token).toBe('');
      }
    });

    it('impersonate follows a redirect itself with a session, leaving it behind at another host', async () => {
      const imp = catalogueOf([
        entry('Hopper', {
          home: `https://${HOSTS.hopper}/`,
          profile: `https://${HOSTS.hopper}/u/{username}`,
          check: { redirects: 'follow' },
          transport: 'impersonate',
        }),
      ]);
      const through = engineFor(sim, imp, {
        sessions: JSON.stringify({ Hopper: { headers: { 'X-Session-Token': TOKEN } } }),
        retries: 0,
      });
      try {
        seen.length = 0;
        const outcome = await through.check(imp.platforms[0]!, 'alice');
        expect(outcome).toMatchObject({
          status: 'hit',
          evidence: { finalUrl: `https://${HOSTS.elsewhere}/u/alice`, transport: 'impersonate' },
        });
        // The hit's control name goes the same way.
        expect(new Set(seen.map((s) => `${s.host} ${s.token}`))).toEqual(
          new Set([`${HOSTS.hopper} ${TOKEN}`, `${HOSTS.elsewhere} `]),
        );
      } finally {
        await through.close();
      }
    });

    it.skipIf(!hasBrowser)(
      'the browser follows a redirect to another host, leaving the session cookie behind',
      async () => {
        const paged = catalogueOf([
          entry('Hopper Browser', {
            home: `https://${HOSTS.hopper}/`,
            profile: `https://${HOSTS.hopper}/u/{username}`,
            check: { redirects: 'follow' },
            transport: 'browser',
          }),
        ]);
        const secret = simSessionValue(HOSTS.walledBrowser);
        // Chromium cannot trust the sim's CA (browser.ts): this engine accepts any certificate.
        const browsing = browsers.engineFor(sim, paged, {
          sessions: JSON.stringify({ 'Hopper Browser': { cookies: { sid: secret } } }),
          insecureTls: true,
          retries: 0,
          // Chromium's first launch takes seconds.
          timeoutMs: 30_000,
        });
        seen.length = 0;
        const outcome = await browsing.check(paged.platforms[0]!, 'alice');
        expect(outcome, JSON.stringify(outcome)).toMatchObject({
          status: 'hit',
          evidence: { finalUrl: `https://${HOSTS.elsewhere}/u/alice`, transport: 'browser' },
        });
        secretFree('the outcome', JSON.stringify(outcome));
        const hops = seen.filter((s) => s.host === HOSTS.hopper);
        expect(hops.length).toBeGreaterThan(0);
        for (const hop of hops) expect(hop.cookie).toBe(`sid=${secret}`);
        // Every request the page made elsewhere (its document, anything it asked for) went without it.
        const elsewhere = seen.filter((s) => s.host !== HOSTS.hopper);
        expect(elsewhere.map((s) => s.host)).toContain(HOSTS.elsewhere);
        for (const other of elsewhere) secretFree(`request to ${other.host}`, JSON.stringify(other));
      },
      60_000,
    );
  });

  it('through the service: hit and miss with a session, session_required without, and no value in logs, answers or reports', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const caFile = join(dir, 'sim-ca.pem');
    writeFileSync(caFile, sim.caCert);
    const sessionsFile = join(dir, 'sessions.json');
    // Walled's session from the file, the others' inline, as a secret store would inject them.
    const parsed = JSON.parse(sessionsJson) as Record<string, unknown>;
    writeFileSync(sessionsFile, JSON.stringify({ Walled: parsed.Walled }));
    delete parsed.Walled;
    const config = loadConfig(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: tempDir(),
        connectTo: sim.connectTo,
        caFile,
        refusePrivate: false,
        timeoutMs: 5000,
        retries: 0,
        selfCheckIntervalMs: 0,
        metricsToken: 'metrics-token',
        sessionsFile,
        logLevel: 'trace',
      },
      { USERSCOUT_SESSIONS: JSON.stringify(parsed) },
    );
    let service: Service | undefined;
    try {
      service = await createService(config, { catalogue, logger: { level: 'trace', stream } });
      const url = await service.listen();
      service.app.log.info({ config, sessions: sessionsJson }, 'a careless line');
      const answers: string[] = [];
      const get = async (path: string, headers: Record<string, string> = {}) => {
        const response = await fetch(`${url}${path}`, { headers });
        const text = await response.text();
        answers.push(text, JSON.stringify([...response.headers]));
        return { status: response.status, text };
      };
      const searched: Record<string, string> = {};
      for (const name of ['alice', 'zz-random-name-4829']) {
        const started = await postSearch(url, {
          username: name,
          platforms: ['Walled', 'Walled Imp', 'Hopper', 'Plain'],
        });
        answers.push(JSON.stringify(started.body));
        expect(started.status).toBe(200);
        const done = await pollUntilDone(url, started.body.queryId, '&include=all');
        answers.push(JSON.stringify(done.body));
        searched[name] = started.body.queryId;
        const byName = Object.fromEntries(
          (done.body.results as { platform: string; status: string }[]).map((r) => [r.platform, r.status]),
        );
        const expected = name === 'alice' ? 'hit' : 'miss';
        expect(byName).toMatchObject({ Walled: expected, 'Walled Imp': expected });
      }
      for (const id of Object.values(searched)) {
        for (const path of [
          `/api/search?id=${id}&include=all`,
          `/api/search/${id}/report.html`,
          `/api/search/${id}/graph.graphml`,
          `/api/search/${id}/graph-nodes.csv`,
          `/api/search/${id}/graph-edges.csv`,
        ])
          expect((await get(path)).status).toBe(200);
        answers.push(await readEvents(`${url}/api/search/${id}/events`, 5_000));
      }
      if (hasBrowser) {
        const pdf = await fetch(`${url}/api/search/${searched.alice}/report.pdf`);
        expect(pdf.status).toBe(200);
        const file = join(dir, 'service-report.pdf');
        writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
        const printed = pdfText(file);
        expect(printed).toContain('Walled');
        // A table cell wraps long text across lines: a value cut in two is still found.
        answers.push(printed, printed.replace(/\s+/g, ''));
      }
      await get('/api/platforms');
      await get('/metrics', { authorization: 'Bearer metrics-token' });
      // A search the service refuses, and a page that is not there: errors are answers too.
      answers.push(JSON.stringify((await postSearch(url, { username: 'alice', platforms: ['Nope'] })).body));
      await get('/api/search/not-an-id');
      // The platform list says which platforms need a session, not what it is.
      const listed = JSON.parse((await get('/api/platforms')).text);
      expect(JSON.stringify(listed)).not.toContain(SESSION_COOKIE);
      await service.close();
      service = undefined;
      const log = lines.join('');
      expect(log).toContain('"level":20');
      expect(log).toContain('a careless line');
      secretFree('the log', log);
      for (const answer of answers) secretFree('an API answer', answer);
    } finally {
      await service?.close();
    }
  }, 60_000);

  it('the service refuses to start with a bad session setting, naming it, never the value', async () => {
    const config = loadConfig(
      { port: 0, host: '127.0.0.1', dataDir: tempDir(), selfCheckIntervalMs: 0 },
      { USERSCOUT_SESSIONS: JSON.stringify({ Walled: { cookies: { [SESSION_COOKIE]: `${TOKEN}\n` } } }) },
    );
    const error = await createService(config, { catalogue }).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error).toMatchObject({ code: 'invalid_config' });
    expect(error?.message).toMatch(
      /Setting sessions \(USERSCOUT_SESSIONS\): platform "Walled": cookies "sim_session"/,
    );
    secretFree('the error', `${error?.message} ${error?.stack} ${JSON.stringify(error)}`);
  });

  it('through the service without a session: session_required, nothing sent', async () => {
    const caFile = join(dir, 'sim-ca-bare.pem');
    writeFileSync(caFile, sim.caCert);
    const config = loadConfig(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: tempDir(),
        connectTo: sim.connectTo,
        caFile,
        refusePrivate: false,
        selfCheckIntervalMs: 0,
      },
      {},
    );
    const service = await createService(config, { catalogue });
    try {
      const url = await service.listen();
      const before = seen.filter((s) => s.host === HOSTS.walled).length;
      const started = await postSearch(url, { username: 'alice', platforms: ['Walled'] });
      const done = await pollUntilDone(url, started.body.queryId, '&include=all');
      expect(done.body.results).toEqual([
        expect.objectContaining({ platform: 'Walled', status: 'unknown', reason: 'session_required' }),
      ]);
      expect(seen.filter((s) => s.host === HOSTS.walled).length).toBe(before);
      const platforms = await json(`${url}/api/platforms`);
      expect(platforms.status).toBe(200);
    } finally {
      await service.close();
    }
  });

  describe('through the CLI', () => {
    function capture() {
      const { io, out, err } = captureIo();
      return { io, text: out, errors: err };
    }
    const env = { USERSCOUT_RETRIES: '0', USERSCOUT_LATENCY_FILE: join(dir, 'latencies.json') };
    const cataloguePath = join(dir, 'catalogue.json');
    const options = (extra: Record<string, unknown>) => ({
      connectTo: sim.connectTo,
      caFile: join(dir, 'sim-ca-cli.pem'),
      catalogue: cataloguePath,
      platform: ['Walled', 'Walled Imp'],
      progress: false,
      all: true,
      ...extra,
    });
    beforeAll(() => {
      writeFileSync(join(dir, 'sim-ca-cli.pem'), sim.caCert);
      writeFileSync(cataloguePath, JSON.stringify({ platforms: SPECS }));
    });

    it('reads hit and miss with --sessions-file, in every output format, and never prints the value', async () => {
      const sessionsFile = join(dir, 'cli-sessions.json');
      writeFileSync(sessionsFile, sessionsJson);
      for (const format of ['json', 'csv', 'html', 'table']) {
        const { io, text, errors } = capture();
        await runSearch(['alice', 'zz-random-name-4829'], options({ sessionsFile, format }), io, env);
        const printed = text.join('\n');
        secretFree(`--format ${format}`, `${printed}\n${errors.join('\n')}`);
        if (format === 'json') {
          const [alice, random] = JSON.parse(printed) as {
            results: { platform: string; status: string }[];
          }[];
          expect(alice!.results.map((r) => r.status)).toEqual(['hit', 'hit']);
          expect(random!.results.map((r) => r.status)).toEqual(['miss', 'miss']);
        }
      }
    }, 60_000);

    it.skipIf(!hasBrowser)(
      'prints a PDF report with --sessions-file that holds no session value',
      async () => {
        const sessionsFile = join(dir, 'cli-sessions-pdf.json');
        writeFileSync(sessionsFile, sessionsJson);
        const output = join(dir, 'report.pdf');
        const { io, text, errors } = capture();
        await runSearch(['alice'], options({ sessionsFile, format: 'pdf', output }), io, env);
        secretFree('--format pdf', `${text.join('\n')}\n${errors.join('\n')}`);
        const printed = pdfText(output);
        expect(printed).toContain('Hits (2)');
        expect(printed).toContain('Walled');
        secretFree('the PDF report', printed);
        // A table cell wraps long text across lines: a value cut in two is still found.
        secretFree('the PDF report, unwrapped', printed.replace(/\s+/g, ''));
        secretFree('the PDF file', readFileSync(output, 'latin1'));
      },
      60_000,
    );

    it('reads unknown/session_required without one', async () => {
      const { io, text } = capture();
      await runSearch(['alice'], options({ format: 'json' }), io, env);
      const alice = JSON.parse(text.join('\n')) as { results: { status: string; reason?: string }[] };
      expect(alice.results).toEqual([
        expect.objectContaining({ status: 'unknown', reason: 'session_required' }),
        expect.objectContaining({ status: 'unknown', reason: 'session_required' }),
      ]);
    });

    it('refuses a bad sessions file naming the setting and the platform, never the value', async () => {
      const bad = join(dir, 'bad-sessions.json');
      const secret = simSessionValue(HOSTS.walled);
      for (const [data, problem] of [
        [`{"Walled": {"cookies": {"sim_session": "${secret}"}`, /is not valid JSON/],
        [
          JSON.stringify({ Walled: { cookies: { sim_session: `${secret};x` } } }),
          /platform "Walled": cookies "sim_session"/,
        ],
        [
          JSON.stringify({ Nowhere: { cookies: { sim_session: secret } } }),
          /platform "Nowhere" is not in the catalogue/,
        ],
      ] as const) {
        writeFileSync(bad, data);
        const { io, text } = capture();
        const error = await runSearch(['alice'], options({ sessionsFile: bad }), io, env).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toMatch(/Setting sessionsFile \(USERSCOUT_SESSIONS_FILE\)/);
        expect(error?.message).toMatch(problem);
        secretFree(
          'the error',
          `${error?.message} ${error?.stack} ${JSON.stringify(error)} ${text.join('\n')}`,
        );
      }
      const missing = await runSearch(
        ['alice'],
        options({ sessionsFile: join(dir, 'absent.json') }),
        capture().io,
        env,
      ).catch((e: unknown) => e as Error);
      expect(String((missing as Error).message)).toMatch(
        /sessionsFile \(USERSCOUT_SESSIONS_FILE\) .*absent\.json: the file cannot be read \(ENOENT\)/,
      );
    });

    it('a secret setting that fails is not echoed', () => {
      expect(() => loadConfig({ sessions: 42 }, {})).toThrow(
        /sessions \(USERSCOUT_SESSIONS\) must be a string; received "\[redacted\]"/,
      );
    });
  });
});
