/**
 * `userscout search --recursive`, the CLI's side of follow-ups, on the simulated web of the
 * recursive-search tests: run here, the new names alice's hits give are
 * searched after her, and her report links to theirs; through a service, the
 * service's follow-ups are listed and linked to its reports.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUpId } from '../../src/api/follow-ups.js';
import { runSearch, type SearchCommandOptions } from '../../src/cli/search.js';
import { captureIo } from '../support/cli-io.js';
import { followUpsCatalogue, followUpsSim, followUpsSpecs } from '../support/follow-ups-fixture.js';
import { type RunningService, startService, tempDir } from '../support/service.js';

const capture = captureIo;

/** The follow-up rows of a report: name, platform of the hit, and the link or text of the search. */
function followUpRows(html: string): string[][] {
  const start = html.indexOf('<h2>Follow-up searches');
  if (start < 0) return [];
  const table = html.slice(start, html.indexOf('</table>', start));
  return [
    ...table.matchAll(/<tr><td><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td><td>(.*?)<\/td><\/tr>/g),
  ].map((m) => [m[1]!, m[2]!, m[3]!]);
}

describe('userscout search --recursive', () => {
  const dir = tempDir();
  const sim = followUpsSim();
  const catalogueFile = join(dir, 'catalogue.json');
  const caFile = join(dir, 'sim-ca.pem');
  const env = { USERSCOUT_RETRIES: '0', USERSCOUT_LATENCY_FILE: join(dir, 'latencies.json') };
  let running: RunningService;
  const options = (extra: SearchCommandOptions): SearchCommandOptions => ({
    connectTo: sim.connectTo,
    caFile,
    progress: false,
    timeout: 10_000,
    catalogue: catalogueFile,
    ...extra,
  });

  beforeAll(async () => {
    await sim.start();
    writeFileSync(catalogueFile, JSON.stringify({ platforms: followUpsSpecs }));
    writeFileSync(caFile, sim.caCert);
    running = await startService(sim, followUpsCatalogue, { freeLimit: 10 });
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('searches the new names after the name, once each, and says which hit gave each (JSON)', async () => {
    const { io, out } = capture();
    expect(await runSearch(['alice'], options({ recursive: true, format: 'json' }), io, env)).toBe(0);
    const [alice, bob, rabbit] = JSON.parse(out.join('')) as {
      queryId: string;
      username: string;
      followUps?: unknown;
      results: { platformId: string }[];
    }[];
    expect([alice?.username, bob?.username, rabbit?.username]).toEqual(['alice', 'bob', 'rabbit']);
    expect(alice!.followUps).toEqual([
      { username: 'bob', from: 'alpha', queryId: bob!.queryId },
      { username: 'rabbit', from: 'alpha', queryId: rabbit!.queryId },
    ]);
    // Depth 1: bob's profile links to carol, who is not searched.
    expect(bob!.followUps).toBeUndefined();
    expect(bob!.results.map((r) => r.platformId)).toEqual(['bravo']);
  });

  it('writes one report per name, the name’s linking to its follow-ups’ files', async () => {
    const output = join(dir, 'report.html');
    expect(
      await runSearch(['alice'], options({ recursive: true, format: 'html', output }), capture().io, env),
    ).toBe(0);
    const alice = readFileSync(join(dir, 'report-alice.html'), 'utf8');
    const rows = followUpRows(alice);
    expect(rows.map(([name, from]) => [name, from])).toEqual([
      ['bob', 'Alpha'],
      ['rabbit', 'Alpha'],
    ]);
    expect(rows[0]![2]).toMatch(/^<a href="report-bob\.html">[0-9a-f-]{36}<\/a>$/);
    expect(rows[1]![2]).toMatch(/^<a href="report-rabbit\.html">[0-9a-f-]{36}<\/a>$/);
    for (const name of ['bob', 'rabbit']) {
      const page = readFileSync(join(dir, `report-${name}.html`), 'utf8');
      expect(page).toContain(`<h1>userscout report: ${name}</h1>`);
      expect(followUpRows(page)).toEqual([]);
    }
    expect(existsSync(join(dir, 'report-carol.html'))).toBe(false);
  });

  it('through a service, lists the service’s follow-ups and links to their reports there', async () => {
    const { io, out } = capture();
    const code = await runSearch(
      ['alice'],
      { server: running.url, progress: false, recursive: true, format: 'html' },
      io,
      env,
    );
    expect(code).toBe(0);
    const html = out.join('');
    const id = /Search ([0-9a-f-]{36})/.exec(html)?.[1];
    expect(id).toBeDefined();
    const rows = followUpRows(html);
    expect(rows).toEqual(
      ['bob', 'rabbit'].map((name) => {
        const queryId = followUpId(id!, name);
        return [name, 'Alpha', `<a href="${running.url}/api/search/${queryId}/report.html">${queryId}</a>`];
      }),
    );
  });
});
