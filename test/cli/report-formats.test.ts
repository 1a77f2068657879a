/**
 * `userscout search --format pdf | graphml | graph-csv` on the simulated web of
 * the recursive-search tests (Alpha's profile of alice links to Bravo's of bob
 * and Charlie's of rabbit; Bravo's profile of bob links on to Charlie's of carol).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphCsvFiles, runSearch, type SearchCommandOptions } from '../../src/cli/search.js';
import { captureIo } from '../support/cli-io.js';
import { followUpsSim, followUpsSpecs } from '../support/follow-ups-fixture.js';
import { readPdf } from '../support/pdf-text.js';
import { csvObjects, readGraphMl } from '../support/read-graph.js';
import { tempDir } from '../support/service.js';
import { CHROMIUM } from '../web/support.js';

const capture = captureIo;

describe('userscout search: PDF and graph outputs', () => {
  const dir = tempDir();
  const sim = followUpsSim();
  const catalogueFile = join(dir, 'catalogue.json');
  const caFile = join(dir, 'sim-ca.pem');
  const env = {
    USERSCOUT_RETRIES: '0',
    USERSCOUT_LATENCY_FILE: join(dir, 'latencies.json'),
    USERSCOUT_BROWSER_PATH: CHROMIUM,
  };
  const options = (extra: SearchCommandOptions): SearchCommandOptions => ({
    connectTo: sim.connectTo,
    caFile,
    progress: false,
    timeout: 10_000,
    catalogue: catalogueFile,
    recursive: true,
    ...extra,
  });

  beforeAll(async () => {
    await sim.start();
    writeFileSync(catalogueFile, JSON.stringify({ platforms: followUpsSpecs }));
    writeFileSync(caFile, sim.caCert);
  });
  afterAll(() => sim.stop());

  it('--format pdf prints one PDF report per name, its pages naming the hits', async () => {
    const { io, err } = capture();
    const file = join(dir, 'pdf', 'report.pdf');
    expect(await runSearch(['alice'], options({ format: 'pdf', output: file }), io, env)).toBe(0);
    const written = ['alice', 'bob', 'rabbit'].map((n) => join(dir, 'pdf', `report-${n}.pdf`));
    expect(err.filter((line) => line.startsWith('wrote '))).toEqual(written.map((f) => `wrote ${f}`));
    const alice = readPdf(readFileSync(written[0]!));
    expect(alice.pages).toBeGreaterThanOrEqual(1);
    expect(alice.text).toContain('userscout report: alice');
    expect(alice.text).toContain('https://alpha.test/');
    expect(alice.text).toMatch(/Follow-up searches \(2\)/);
    expect(readPdf(readFileSync(written[1]!)).text).toContain('userscout report: bob');
  }, 120_000);

  it('refuses --format pdf without --output, and says how to install Chromium before searching', async () => {
    await expect(runSearch(['alice'], options({ format: 'pdf' }), capture().io, env)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('--format pdf needs --output FILE'),
    });
    const { io, err } = capture();
    const file = join(dir, 'missing.pdf');
    const run = runSearch(['alice'], options({ format: 'pdf', output: file }), io, {
      ...env,
      USERSCOUT_BROWSER_PATH: '/nonexistent/chromium',
    });
    await expect(run).rejects.toMatchObject({
      code: 'pdf_unavailable',
      message: expect.stringContaining('apt-get install chromium'),
    });
    // Refused before the search: nothing searched, nothing written.
    expect(err).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });

  it('--format graphml prints the graph of the name, its follow-ups and their hits', async () => {
    const { io, out } = capture();
    expect(await runSearch(['alice'], options({ format: 'graphml' }), io, env)).toBe(0);
    const graph = readGraphMl(out.join(''));
    expect(graph.nodes.map((n) => n.id)).toEqual(
      expect.arrayContaining([
        'name:alice',
        'account:alpha:alice',
        'account:bravo:bob',
        'account:charlie:rabbit',
        'account:charlie:carol',
        'name:bob',
        'name:rabbit',
      ]),
    );
    const edges = graph.edges.map((e) => `${e.source} ${e.data.label} ${e.target}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'name:alice has_account account:alpha:alice',
        'account:alpha:alice links_to account:bravo:bob',
        'name:alice followed_up name:bob',
        'name:bob has_account account:bravo:bob',
        'account:bravo:bob links_to account:charlie:carol',
      ]),
    );
    expect(graph.nodes.find((n) => n.id === 'account:alpha:alice')!.data).toMatchObject({
      platform: 'Alpha',
      fullName: 'Alice',
      status: 'hit',
    });
  }, 60_000);

  it('--format graph-csv writes the nodes and edges files beside a prefix, or in a folder', async () => {
    const { io, err } = capture();
    const prefix = join(dir, 'csv', 'alice');
    expect(await runSearch(['alice'], options({ format: 'graph-csv', output: prefix }), io, env)).toBe(0);
    expect(err.filter((line) => line.startsWith('wrote '))).toEqual([
      `wrote ${prefix}-nodes.csv`,
      `wrote ${prefix}-edges.csv`,
    ]);
    const nodes = csvObjects(readFileSync(`${prefix}-nodes.csv`, 'utf8'));
    const edges = csvObjects(readFileSync(`${prefix}-edges.csv`, 'utf8'));
    const ids = new Set(nodes.map((n) => n.id));
    expect(ids.has('name:rabbit')).toBe(true);
    for (const edge of edges) expect(ids.has(edge.source!) && ids.has(edge.target!)).toBe(true);
    expect(edges).toContainEqual(
      expect.objectContaining({
        source: 'name:alice',
        target: 'name:bob',
        relationship: 'followed_up',
        via: 'alpha',
      }),
    );
    await expect(runSearch(['alice'], options({ format: 'graph-csv' }), capture().io, env)).rejects.toThrow(
      '--format graph-csv needs --output PREFIX',
    );
  }, 60_000);

  it('names the graph-csv files after a prefix or inside a folder', () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    expect(graphCsvFiles(folder)).toEqual({
      nodes: join(folder, 'graph-nodes.csv'),
      edges: join(folder, 'graph-edges.csv'),
    });
    expect(graphCsvFiles('out/new/')).toEqual({
      nodes: 'out/new/graph-nodes.csv',
      edges: 'out/new/graph-edges.csv',
    });
    expect(graphCsvFiles('out/alice.csv')).toEqual({
      nodes: 'out/alice-nodes.csv',
      edges: 'out/alice-edges.csv',
    });
    expect(graphCsvFiles('alice')).toEqual({ nodes: 'alice-nodes.csv', edges: 'alice-edges.csv' });
  });
});
