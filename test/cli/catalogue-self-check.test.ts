/**
 * `catalogue self-check` on the simulated web: a category of the built-in
 * catalogue where most platforms behave as their entries say, some have changed
 * their markup (reported broken) and some sit behind a shield, a rate limit or
 * drop the connection (reported blocked: the check cannot tell).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import type { HealthFile } from '../../src/catalogue/health.js';
import type { Platform } from '../../src/catalogue/platform.js';
import {
  formatSelfCheckReport,
  runSelfCheck,
  type SelfCheckCommandOptions,
} from '../../src/cli/catalogue-self-check.js';
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { tempDir } from '../support/service.js';

const { catalogue } = loadBuiltinCatalogue();
// Thirty real entries are enough here; test/catalogue-sim.test.ts runs them all.
const coding = catalogue.platforms.filter((p) => p.enabled && p.category === 'coding').slice(0, 30);
// Picked by position so the test does not depend on particular entries.
const redesigned = coding.slice(0, 3);
const claimedGone = coding[3]!;
const shielded = coding.slice(4, 6);
const rateLimited = coding[6]!;
const dropping = coding[7]!;
const BROKEN = [...redesigned, claimedGone].map((p) => p.id).sort();
const BLOCKED = [...shielded, rateLimited, dropping].map((p) => p.id).sort();

/** The site's new design: one page for every name, which none of the entry's rules expects. */
const NEW_LOOK: Behaviour = {
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: '<!doctype html><html><head><title>Welcome</title></head><body><div id="app">Loading…</div></body></html>',
};

function override(platform: Platform, username: string): Behaviour | undefined {
  if (redesigned.includes(platform)) return NEW_LOOK;
  // The known account was deleted: the site now answers 410 Gone for it.
  if (platform === claimedGone && username === platform.known.claimed[0])
    return { kind: 'respond', status: 410, body: 'gone' };
  if (platform === shielded[0]) return { kind: 'waf', vendor: 'cloudflare' };
  if (platform === shielded[1]) return { kind: 'waf', vendor: 'perimeterx' };
  if (platform === rateLimited)
    return { kind: 'rate-limit', times: 100, retryAfter: '1', after: { kind: 'respond', status: 500 } };
  // Drops every connection: no answer at all.
  if (platform === dropping) return { kind: 'reset' };
  return undefined;
}

const sim = new SimWeb({ routes: emulateCatalogue(coding, catalogue.shields, { override }).routes });
let caFile: string;

beforeAll(async () => {
  await sim.start();
  caFile = join(tempDir(), 'ca.pem');
  writeFileSync(caFile, sim.caCert);
});
afterAll(async () => {
  await sim.stop();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t), stderr: new PassThrough() };
  return { io, out, err };
}

function selfCheck(dataDir: string, options: SelfCheckCommandOptions = {}) {
  const { io, out, err } = capture();
  const run = runSelfCheck(
    {
      platform: coding.map((p) => p.name),
      dataDir,
      connectTo: sim.connectTo,
      caFile,
      // Generous: the machine may be busy (the sim makes a certificate per host on
      // first contact), and nothing here waits for a deadline.
      timeout: '20000',
      concurrency: '32',
      progress: false,
      ...options,
    },
    io,
    {
      env: { USERSCOUT_RETRIES: '0', USERSCOUT_CONNECT_TIMEOUT_MS: '20000' },
      now: () => Date.UTC(2026, 4, 6, 7, 8, 9),
    },
  );
  return run.then((outcome) => ({ ...outcome, out, err }));
}

describe('catalogue self-check on the simulated web', () => {
  it('reports changed platforms broken and shielded ones blocked, and writes the health file', async () => {
    const dataDir = tempDir();
    const { report, exitCode, out } = await selfCheck(dataDir, { format: 'json', category: ['coding'] });

    const expected = (id: string) =>
      BROKEN.includes(id) ? 'broken' : BLOCKED.includes(id) ? 'blocked' : 'healthy';
    const surprises = report.results
      .filter((r) => r.verdict !== expected(r.id))
      .map((r) => `${r.id}: ${r.verdict} (${r.reason})`);
    expect(surprises).toEqual([]);
    expect(exitCode).toBe(1);
    const ids = (verdict: string) =>
      report.results
        .filter((r) => r.verdict === verdict)
        .map((r) => r.id)
        .sort();
    expect(ids('broken')).toEqual(BROKEN);
    expect(ids('blocked')).toEqual(BLOCKED);
    expect(report).toMatchObject({
      platforms: coding.length,
      healthy: coding.length - BROKEN.length - BLOCKED.length,
      broken: BROKEN.length,
      blocked: BLOCKED.length,
      healthFile: join(dataDir, 'health.json'),
      checkedAt: '2026-05-06T07:08:09.000Z',
    });
    expect(JSON.parse(out.join('\n'))).toEqual(report);

    // The evidence: what each name gave, with status, URL and rule.
    const byId = new Map(report.results.map((r) => [r.id, r]));
    const redesign = byId.get(redesigned[0]!.id)!;
    expect(redesign.checks).toHaveLength(2);
    for (const check of redesign.checks) {
      expect(check.httpStatus).toBe(200);
      expect(check.finalUrl).toMatch(/^https?:\/\//);
      expect(check.rule).not.toBe('');
    }
    expect(redesign.reason).toContain('HTTP 200');
    const gone = byId.get(claimedGone.id)!;
    expect(gone.checks[0]).toMatchObject({ username: claimedGone.known.claimed[0], expected: 'hit' });
    expect(gone.checks[0]!.httpStatus).toBe(410);
    expect(gone.checks[1]).toMatchObject({ expected: 'miss', status: 'miss' });
    expect(byId.get(shielded[0]!.id)!.reason).toContain('got unknown/waf');
    expect(byId.get(shielded[1]!.id)!.reason).toMatch(/got unknown\/(waf|captcha)/);
    expect(byId.get(rateLimited.id)!.reason).toContain('got unknown/rate_limited');
    expect(byId.get(dropping.id)!.reason).toContain('got error/connection');
    for (const id of [...BROKEN, ...BLOCKED]) expect(byId.get(id)!.reason).toBeTruthy();
    for (const r of report.results.filter((r) => r.verdict === 'healthy')) {
      expect(r.checks.map((c) => c.status)).toEqual(['hit', 'miss']);
      expect(r.reason).toBeUndefined();
    }

    const health = JSON.parse(readFileSync(join(dataDir, 'health.json'), 'utf8')) as HealthFile;
    expect(Object.keys(health.platforms).sort()).toEqual(coding.map((p) => p.id).sort());
    expect(health.platforms[redesigned[0]!.id]).toEqual({
      verdict: 'broken',
      reason: redesign.reason,
      validatedAt: Date.UTC(2026, 4, 6, 7, 8, 9),
    });
    expect(health.platforms[dropping.id]?.verdict).toBe('blocked');
    expect(health.platforms[coding[10]!.id]).toEqual({
      verdict: 'healthy',
      validatedAt: Date.UTC(2026, 4, 6, 7, 8, 9),
    });
  }, 60_000);

  it('updates only the platforms checked, prints a table, and leaves the file alone with --no-write', async () => {
    const dataDir = tempDir();
    const path = join(dataDir, 'health.json');
    const other = { verdict: 'broken', reason: 'checked last week', validatedAt: 1 };
    writeFileSync(path, JSON.stringify({ generatedAt: 1, platforms: { 'some-other-site': other } }));

    const first = await selfCheck(dataDir, { platform: [redesigned[0]!.name, coding[10]!.name] });
    expect(first.exitCode).toBe(1);
    const table = first.out.join('\n').split('\n');
    expect(table).toHaveLength(2);
    expect(table[0]).toMatch(new RegExp(`^broken +${redesigned[0]!.name} +claimed `));
    expect(table[1]).toBe(
      `self-check of 2 platforms: 1 healthy, 1 broken, 0 blocked; health written to ${path}`,
    );
    const health = JSON.parse(readFileSync(path, 'utf8')) as HealthFile;
    expect(Object.keys(health.platforms).sort()).toEqual(
      [redesigned[0]!.id, coding[10]!.id, 'some-other-site'].sort(),
    );
    expect(health.platforms['some-other-site']).toEqual(other);

    const before = readFileSync(path, 'utf8');
    const dry = await selfCheck(dataDir, { platform: [coding[10]!.name], write: false });
    expect(dry.exitCode).toBe(0);
    expect(dry.report.healthFile).toBeUndefined();
    expect(dry.out.join('\n')).toBe('self-check of 1 platform: 1 healthy, 0 broken, 0 blocked');
    expect(readFileSync(path, 'utf8')).toBe(before);
  }, 30_000);

  it('refuses bad arguments before sending anything', async () => {
    await expect(selfCheck(tempDir(), { category: ['nope'] })).rejects.toThrow(
      /--category nope is not one of/,
    );
    // Our thirty platforms are all in coding.
    await expect(selfCheck(tempDir(), { category: ['social'] })).rejects.toThrow(
      'no platform matches the filters',
    );
    await expect(selfCheck(tempDir(), { platform: ['No Such Site'] })).rejects.toThrow(
      'no platform matches the filters',
    );
    await expect(selfCheck(tempDir(), { format: 'xml' })).rejects.toThrow(
      '--format must be one of table, json',
    );
  });

  it('formats an all-healthy report as one line', () => {
    expect(
      formatSelfCheckReport(
        { checkedAt: '', platforms: 3, healthy: 3, broken: 0, blocked: 0, results: [] },
        'table',
      ),
    ).toBe('self-check of 3 platforms: 3 healthy, 0 broken, 0 blocked');
  });
});
