/**
 * Sites that defend themselves, end to end: built-in platforms whose entry names a
 * transport, defended by the simulated web as their live sites are (a handshake check
 * for `impersonate`, refused with a block page or a TLS alert; a JavaScript challenge
 * for `browser`), searched through the service's HTTP API and through the CLI, run as a
 * child process. Through the transport its entry names, or
 * by escalation from an entry that names none, each reads `hit` for its known
 * accounts and `miss` for a random name, with no false hit; with escalation off, an
 * entry that names no transport reads `unknown`, the defence named.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue, readBuiltinDocument } from '../../src/catalogue/builtin.js';
import type { Platform } from '../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import { EXIT_LOW_COVERAGE } from '../../src/cli/exit-codes.js';
import { defenceOf } from '../../src/sim/defence.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { hasBrowser } from '../support/browser-guard.js';
import { catalogueOf } from '../support/catalogue.js';
import { cliEntry } from '../support/cli-entry.js';
import { pollUntilDone, postSearch, type RunningService, startService, tempDir } from '../support/service.js';

/**
 * Built-in platforms the sim defends by default, each on a host of its own, by the check
 * that stops them: few, since each name searched costs a browser check per challenged
 * platform. The handshake's two refuse it each their own way (a block page, a TLS alert).
 */
const DEFENDED = { handshake: ['Codeberg', 'Ko-fi'], challenge: ['Trakt'] } as const;
type Check = keyof typeof DEFENDED;
/** How the sim defends a platform (defence.ts `defenceOf`). */
type Defence = 'handshake' | 'handshake-alert' | 'challenge';

const builtin = loadBuiltinCatalogue().catalogue;
const named: Platform[] = Object.values(DEFENDED)
  .flat()
  .map((name) => {
    const found = builtin.platforms.find((p) => p.name === name);
    if (!found) throw new Error(`${name} is not in the built-in catalogue`);
    return found;
  });
const defenceOfName = new Map(named.map((p) => [p.name, defenceOf(p)]));

/** Their entries as the built-in catalogue files hold them. */
const namedSpecs = (readBuiltinDocument().platforms as PlatformSpec[]).filter((spec) =>
  named.some((p) => p.name === spec.name),
);
/** The same entries, naming no transport: as the catalogue read a site before it was known to defend itself. */
const UNNAMED = ' (no transport)';
const unnamedSpecs: PlatformSpec[] = namedSpecs.map(({ transport: _transport, ...spec }) => ({
  ...spec,
  name: `${spec.name}${UNNAMED}`,
}));

/** The entry a (possibly unnamed) platform was copied from. */
const origin = (name: string): Platform => named.find((p) => p.name === name.replace(UNNAMED, ''))!;

/** Names with an account: each platform's known claimed accounts (the sim's default). */
const KNOWN = [...new Set(named.map((p) => p.known.claimed[0]!))];
/** A name no platform has an account for, new each run. */
const RANDOM = `nobody${randomBytes(5).toString('hex')}`;
const NAMES = [...KNOWN, RANDOM];

/** Whether `username` has an account on the site behind `platform`: the ground truth. */
const claimed = (platform: string, username: string) => origin(platform).known.claimed.includes(username);

const defenceOfPlatform = (platform: string): Defence => {
  const defence = defenceOfName.get(origin(platform).name);
  if (defence !== 'handshake' && defence !== 'handshake-alert' && defence !== 'challenge')
    throw new Error(`${platform}: ${defence}`);
  return defence;
};

/**
 * What the engine reads in each defence's answer: Cloudflare's block page (403), the TLS
 * alert that ended the handshake (no answer, no status), Cloudflare's challenge page (403).
 */
const SHIELD_READ: Record<Defence, { rule: RegExp; httpStatus: number | undefined }> = {
  handshake: { rule: /^shield: cloudflare-block$/, httpStatus: 403 },
  'handshake-alert': {
    rule: /^shield: tls-handshake-refused \(ERR_SSL_(?:SSLV3|SSL\/TLS)_ALERT_HANDSHAKE_FAILURE: /,
    httpStatus: undefined,
  },
  challenge: { rule: /^shield: cloudflare-mitigated$/, httpStatus: 403 },
};

/** The transport that gets past a defence. */
const PAST: Record<Defence, string> = {
  handshake: 'impersonate',
  'handshake-alert': 'impersonate',
  challenge: 'browser',
};

interface Row {
  platform: string;
  status: string;
  reason?: string;
  evidence: { rule: string; transport?: string; httpStatus?: number };
}

/** Outcomes of one name, by platform. */
type Read = Map<string, Row>;

/**
 * Every platform reads `hit` for a name it has an account for and `miss` for any other,
 * through the transport that gets past its site's defence: no false hit, none unread.
 */
function expectReachedAll(byName: Map<string, Read>, platforms: readonly string[]) {
  for (const [username, read] of byName)
    for (const platform of platforms) {
      const row = read.get(platform);
      const expected = claimed(platform, username) ? 'hit' : 'miss';
      expect(row, `${platform} for ${username}: ${JSON.stringify(row)}`).toMatchObject({
        status: expected,
        evidence: { transport: PAST[defenceOfPlatform(platform)] },
      });
    }
  // Each known account was found, and the random name nowhere.
  for (const platform of platforms)
    expect(
      [...byName].some(
        ([username, read]) => claimed(platform, username) && read.get(platform)?.status === 'hit',
      ),
      platform,
    ).toBe(true);
  expect([...(byName.get(RANDOM)?.values() ?? [])].filter((r) => r.status === 'hit')).toEqual([]);
}

/** Escalation off: an entry naming no transport reads its site's defence, named, for every name. */
function expectDefenceNamed(byName: Map<string, Read>, platforms: readonly string[]) {
  for (const [username, read] of byName)
    for (const platform of platforms) {
      const row = read.get(platform);
      // The shield's answer to that defence, and no word of escalation: it is off, not spent.
      const shield = SHIELD_READ[defenceOfPlatform(platform)];
      expect(row, `${platform} for ${username}`).toMatchObject({ status: 'unknown', reason: 'waf' });
      expect(row!.evidence.rule, platform).toMatch(shield.rule);
      expect(row!.evidence.httpStatus, platform).toBe(shield.httpStatus);
      expect(row!.evidence.transport, platform).toBeUndefined();
    }
}

const namesOf = (checks: readonly Check[], suffix = '') =>
  checks.flatMap((d) => DEFENDED[d].map((name) => `${name}${suffix}`));
/** The defences this machine can get past: the challenge needs Chromium. */
const REACHABLE: Check[] = hasBrowser ? ['handshake', 'challenge'] : ['handshake'];

describe('sites that defend themselves, end to end', () => {
  const dir = tempDir();
  const sim = new SimWeb({ routes: emulateCatalogue(named, builtin.shields).routes });
  const catalogue = catalogueOf([...namedSpecs, ...unnamedSpecs]);
  const unnamedFile = join(dir, 'unnamed.json');
  writeFileSync(unnamedFile, JSON.stringify({ platforms: unnamedSpecs }));
  const caFile = join(dir, 'sim-ca.pem');
  // Chromium cannot trust the sim's CA (browser.ts): every run here accepts its certificates. The
  // deadline leaves room for Chromium's launch; nothing is remembered of what a site needed, so
  // each check escalates from its entry's transport.
  const settings = {
    insecureTls: true,
    timeoutMs: 30_000,
    browserContexts: 1,
    transportMemoryTtlMs: 0,
    retries: 0,
    // More searches than the free tier's window allows.
    freeLimit: 1000,
  };
  /** More than a search's escalations: one per handshake platform, two per challenged one (impersonate, then browser). */
  const ESCALATIONS = 16;
  let escalating: RunningService;
  let plain: RunningService;

  beforeAll(async () => {
    await sim.start();
    writeFileSync(caFile, sim.caCert);
    escalating = await startService(sim, catalogue, { ...settings, escalations: ESCALATIONS });
    plain = await startService(sim, catalogue, { ...settings, escalations: 0 });
  });
  afterAll(async () => {
    await Promise.all([escalating?.service.close(), plain?.service.close()]);
    await sim.stop();
  });

  /** Each name searched through the service's API on `platforms`, polled until completed. */
  async function viaService(
    service: RunningService,
    platforms: readonly string[],
  ): Promise<Map<string, Read>> {
    const byName = new Map<string, Read>();
    for (const username of NAMES) {
      const started = await postSearch(service.url, { username, platforms });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const done = await pollUntilDone(service.url, started.body.queryId, '&include=all', 100, 90_000);
      expect(done.body.status).toBe('completed');
      const rows = done.body.results as Row[];
      expect(rows.map((r) => r.platform).sort()).toEqual([...platforms].sort());
      byName.set(username, new Map(rows.map((r) => [r.platform, r])));
    }
    return byName;
  }

  /** The names searched by `userscout search --format json --all`, run as a user runs it, with `env`. */
  async function viaCli(
    extra: { catalogue?: string; platform?: readonly string[] },
    env: Record<string, string>,
  ): Promise<{ code: number; byName: Map<string, Read> }> {
    const args = [
      'search',
      ...NAMES,
      ...sim.connectTo.flatMap((rule) => ['--connect-to', rule]),
      ...['--ca-file', caFile, '--insecure', '--no-progress', '--timeout', String(settings.timeoutMs)],
      ...['--format', 'json', '--all'],
      ...(extra.catalogue ? ['--catalogue', extra.catalogue] : []),
      ...(extra.platform ?? []).flatMap((name) => ['--platform', name]),
    ];
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
      env: {
        ...process.env,
        USERSCOUT_DATA_DIR: join(dir, 'cli-data'),
        USERSCOUT_RETRIES: '0',
        USERSCOUT_BROWSER_CONTEXTS: '1',
        USERSCOUT_TRANSPORT_MEMORY_TTL_MS: '0',
        USERSCOUT_LATENCY_FILE: join(dir, 'latencies.json'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await new Promise<number>((resolve) => child.on('close', (exit) => resolve(exit ?? -1)));
    const stdout = Buffer.concat(out).toString('utf8');
    const reports = JSON.parse(stdout || '[]') as { username: string; results: Row[] }[];
    expect(
      reports.map((r) => r.username),
      Buffer.concat(err).toString('utf8'),
    ).toEqual(NAMES);
    return {
      code,
      byName: new Map(reports.map((r) => [r.username, new Map(r.results.map((row) => [row.platform, row]))])),
    };
  }

  it('meets the handshake check in both its forms: a block page and a TLS alert', () => {
    expect(new Set(DEFENDED.handshake.map((name) => defenceOfName.get(name)))).toEqual(
      new Set(['handshake', 'handshake-alert']),
    );
  });

  describe('through the service', () => {
    it('reads the built-in platforms behind each defence through the transport their entries name, escalation off', async () => {
      const platforms = namesOf(REACHABLE);
      expectReachedAll(await viaService(plain, platforms), platforms);
    }, 120_000);

    it('reads entries naming no transport by escalation', async () => {
      const platforms = namesOf(REACHABLE, UNNAMED);
      expectReachedAll(await viaService(escalating, platforms), platforms);
    }, 120_000);

    it('reads entries naming no transport unknown, the defence named, with escalation off', async () => {
      const platforms = namesOf(['handshake', 'challenge'], UNNAMED);
      expectDefenceNamed(await viaService(plain, platforms), platforms);
    }, 60_000);
  });

  describe('through the CLI', () => {
    it('reads the built-in platforms behind each defence through the transport their entries name', async () => {
      const platforms = namesOf(REACHABLE);
      const { code, byName } = await viaCli({ platform: platforms }, { USERSCOUT_ESCALATIONS: '0' });
      expect(code).toBe(0);
      expectReachedAll(byName, platforms);
    }, 120_000);

    it('reads entries naming no transport by escalation', async () => {
      const platforms = namesOf(REACHABLE, UNNAMED);
      const { code, byName } = await viaCli(
        { catalogue: unnamedFile, platform: platforms },
        { USERSCOUT_ESCALATIONS: String(ESCALATIONS) },
      );
      expect(code).toBe(0);
      expectReachedAll(byName, platforms);
    }, 120_000);

    it('reads entries naming no transport unknown, the defence named, with escalation off', async () => {
      const platforms = namesOf(['handshake', 'challenge'], UNNAMED);
      const { code, byName } = await viaCli({ catalogue: unnamedFile }, { USERSCOUT_ESCALATIONS: '0' });
      // None answered: a missing hit proves nothing, and the exit code says so.
      expect(code).toBe(EXIT_LOW_COVERAGE);
      expectDefenceNamed(byName, platforms);
    }, 60_000);
  });
});
