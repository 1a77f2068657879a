/**
 * `userscout mcp` as an assistant meets it: a real process
 * (`node --import tsx src/cli/main.ts mcp …`) driven by the SDK's own client
 * over stdio. It lists its tools with their input schemas, searches a name on
 * the simulated web, reads the hits and every outcome by the search's id, lists
 * platforms by category, and reports an unknown id and a bad name as errors.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformSpec } from '../../src/catalogue/schema.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { cliEntry } from '../support/cli-entry.js';
import { type RunningService, startService, tempDir } from '../support/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const specs: PlatformSpec[] = [
  entry('Alpha', { known: { claimed: ['alice'], unclaimed: ['nobody-here-7'] }, tags: ['git'] }),
  entry('Bravo', { known: { claimed: ['bob'], unclaimed: ['nobody-here-7'] } }),
  entry('Charlie', {
    category: 'coding',
    known: { claimed: ['alice'], unclaimed: ['nobody-here-7'] },
  }),
  // A platform that answers 503 to everything: it cannot tell, and must not read as a miss.
  entry('Delta', { known: { claimed: ['alice'], unclaimed: ['nobody-here-7'] } }),
];
const catalogue = catalogueOf(specs);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  override: (p) => (p.name === 'Delta' ? { kind: 'respond', status: 503 } : undefined),
});
const sim = new SimWeb({ truth: emulation.truth, routes: emulation.routes });

interface Mcp {
  readonly client: Client;
  readonly stderr: string[];
}

/** `userscout mcp ARGS` as a child process, connected with the SDK's client over its stdio. */
async function startMcp(args: readonly string[], dir: string): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliEntry(), 'mcp', ...args],
    cwd: ROOT,
    env: {
      ...(process.env as Record<string, string>),
      NODE_NO_WARNINGS: '1',
      USERSCOUT_RETRIES: '0',
      USERSCOUT_TIMEOUT_MS: '5000',
      USERSCOUT_LATENCY_FILE: join(dir, 'latency.json'),
    },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const client = new Client({ name: 'userscout-test', version: '1.0.0' });
  // Generous: tsx compiles the sources at start, on a machine shared with other work.
  await client.connect(transport, { timeout: 90_000 });
  return { client, stderr };
}

let local: Mcp;
let remote: Mcp;
let service: RunningService | undefined;

const texts = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : ''));
const call = async (mcp: Mcp, name: string, args: Record<string, unknown>) =>
  (await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;

beforeAll(async () => {
  await sim.start();
  const dir = tempDir('userscout-mcp-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const network = [...sim.connectTo.flatMap((rule) => ['--connect-to', rule]), '--ca-file', caFile];
  service = await startService(sim, catalogue, { retries: 0 });
  [local, remote] = await Promise.all([
    startMcp(['--catalogue', catalogueFile, ...network], dir),
    startMcp(['--server', service.url], dir),
  ]);
}, 120_000);

afterAll(async () => {
  // Closing a client closes the server's stdin; the transport kills the process if it lingers.
  await Promise.all([local?.client.close(), remote?.client.close()]);
  await service?.service.close();
  await sim.stop();
}, 30_000);

describe('userscout mcp on this machine', () => {
  it('names itself and lists its three tools, each with a JSON input schema', async () => {
    expect(local.client.getServerVersion()?.name).toBe('userscout');
    const { tools } = await local.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_search_results',
      'list_platforms',
      'search_username',
    ]);
    const search = tools.find((t) => t.name === 'search_username')!;
    expect(search.inputSchema.type).toBe('object');
    expect(search.inputSchema.required).toEqual(['username']);
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'username',
        'categories',
        'platforms',
        'tags',
        'top',
        'includeNsfw',
        'waitSeconds',
      ]),
    );
    const read = tools.find((t) => t.name === 'get_search_results')!;
    expect(read.inputSchema.properties?.include).toMatchObject({ enum: ['hits', 'all'] });
  });

  it('searches a name on the simulated web and reads its hits and every outcome by id', async () => {
    const answer = await call(local, 'search_username', { username: 'alice', waitSeconds: 45 });
    expect(answer.isError, texts(answer).join('\n')).toBeFalsy();
    const [summary, json] = texts(answer);
    const search = JSON.parse(json!);
    expect(search).toMatchObject({ username: 'alice', status: 'completed' });
    expect(search.results.map((r: { platform: string }) => r.platform).sort()).toEqual(['Alpha', 'Charlie']);
    expect(search.progress).toMatchObject({ total: 4, hits: 2, answered: 3, unknown: 1 });
    expect(summary).toContain(
      'alice: completed on 4 platforms: 2 hits (account exists), 1 miss (no account)',
    );
    expect(summary).toContain('1 unknown');
    expect(summary).toContain('is not a miss');

    const hits = await call(local, 'get_search_results', { queryId: search.queryId });
    expect(hits.isError).toBeFalsy();
    const read = JSON.parse(texts(hits)[1]!);
    expect(read.queryId).toBe(search.queryId);
    expect(
      read.results.map((r: { platform: string; status: string }) => [r.platform, r.status]).sort(),
    ).toEqual([
      ['Alpha', 'hit'],
      ['Charlie', 'hit'],
    ]);

    const all = await call(local, 'get_search_results', { queryId: search.queryId, include: 'all' });
    const every = JSON.parse(texts(all)[1]!);
    const byName = Object.fromEntries(
      every.results.map((r: { platform: string; status: string }) => [r.platform, r.status]),
    );
    expect(byName).toEqual({ Alpha: 'hit', Bravo: 'miss', Charlie: 'hit', Delta: 'unknown' });
  }, 90_000);

  it('narrows a search by tag', async () => {
    const answer = await call(local, 'search_username', {
      username: 'alice',
      tags: ['GIT'],
      waitSeconds: 45,
    });
    expect(answer.isError, texts(answer).join('\n')).toBeFalsy();
    const search = JSON.parse(texts(answer)[1]!);
    expect(search.progress).toMatchObject({ total: 1, hits: 1 });
    expect(search.results.map((r: { platform: string }) => r.platform)).toEqual(['Alpha']);
  }, 90_000);

  it('lists platforms by category', async () => {
    const answer = await call(local, 'list_platforms', { category: 'coding' });
    expect(answer.isError).toBeFalsy();
    const list = JSON.parse(texts(answer)[1]!);
    expect(list.platforms.map((p: { name: string }) => p.name)).toEqual(['Charlie']);
    expect(list.platforms[0]).toMatchObject({ category: 'coding', enabled: true });
  });

  it('reports an unknown id and a bad name as errors, never as nothing found', async () => {
    const unknown = await call(local, 'get_search_results', { queryId: 'no-such-search' });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toMatch(/^search_not_found: /);

    const bad = await call(local, 'search_username', { username: 'a/b' });
    expect(bad.isError).toBe(true);
    expect(texts(bad)[0]).toMatch(/^invalid_username: /);

    const badInput = await call(local, 'list_platforms', { category: 'not-a-category' });
    expect(badInput.isError).toBe(true);
  });

  it('writes nothing but the protocol to stdout', () => {
    // Any stray line on stdout would have broken the client's parsing above; the start line goes to stderr.
    expect(local.stderr.join('')).toContain('userscout mcp: serving on stdio; searches run on this machine');
  });
});

describe('userscout mcp --server', () => {
  it('searches through the service and reads the search there by its id', async () => {
    const answer = await call(remote, 'search_username', { username: 'alice', waitSeconds: 45 });
    expect(answer.isError, texts(answer).join('\n')).toBeFalsy();
    const search = JSON.parse(texts(answer)[1]!);
    expect(search).toMatchObject({ username: 'alice', status: 'completed' });
    expect(search.progress).toMatchObject({ total: 4, hits: 2, answered: 3 });
    // The service has it under the same id.
    const stored = await service!.service.store.snapshot(search.queryId, {});
    expect(stored?.search.username).toBe('alice');

    const all = await call(remote, 'get_search_results', { queryId: search.queryId, include: 'all' });
    const byName = Object.fromEntries(
      JSON.parse(texts(all)[1]!).results.map((r: { platform: string; status: string }) => [
        r.platform,
        r.status,
      ]),
    );
    expect(byName).toEqual({ Alpha: 'hit', Bravo: 'miss', Charlie: 'hit', Delta: 'unknown' });

    const platforms = JSON.parse(texts(await call(remote, 'list_platforms', { category: 'coding' }))[1]!);
    expect(platforms.platforms.map((p: { name: string }) => p.name)).toEqual(['Charlie']);
  }, 90_000);

  it("reports the service's unknown id as such", async () => {
    const unknown = await call(remote, 'get_search_results', {
      queryId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toMatch(/^search_not_found: /);
  });
});
