/**
 * `catalogue sync` against a small HTTP server on 127.0.0.1 serving tiny
 * lists in each upstream format (written here, one or two sites each), a bad
 * list, a missing one, a hanging one, and a closed port for "offline".
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogueFrom } from '../../src/catalogue/source.js';
import { describeDownloadFailure, UPSTREAM_URLS } from '../../src/catalogue/upstream.js';
import { runCatalogueSync } from '../../src/cli/catalogue-sync.js';
import { cliEntry } from '../support/cli-entry.js';
import { tempDir } from '../support/service.js';

const LISTS: Record<string, unknown> = {
  '/wmn-data.json': {
    sites: [
      {
        name: 'Alpha',
        uri_check: 'https://alpha.example/u/{account}',
        e_code: 200,
        e_string: '<h1 class="profile">',
        m_code: 404,
        m_string: 'No such user',
        known: ['alice'],
        cat: 'social',
      },
      { name: 'Beta', uri_check: 'https://beta.example/{account}', e_code: 200, e_string: 'x', known: [] },
    ],
  },
  '/sherlock.json': {
    $schema: 'data.schema.json',
    Alpha: {
      url: 'https://alpha.example/u/{}',
      urlMain: 'https://alpha.example/',
      errorType: 'status_code',
      username_claimed: 'alice',
    },
    Gamma: {
      url: 'https://gamma.example/{}',
      urlMain: 'https://gamma.example/',
      errorType: 'message',
      errorMsg: 'Page not found',
      username_claimed: 'bob',
    },
  },
  '/maigret.json': {
    sites: {
      Alpha: {
        url: 'https://alpha.example/user/{username}',
        urlMain: 'https://alpha.example/',
        checkType: 'status_code',
        usernameClaimed: 'alice',
        usernameUnclaimed: 'noonewouldeverusethis7',
        tags: ['us'],
      },
    },
    engines: {},
    tags: ['us'],
  },
  '/nothing-imports.json': {
    sites: [{ name: 'Beta', uri_check: 'https://beta.example/{account}', valid: false }],
  },
};

let server: Server;
let base: string;
let closedPort: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const list = LISTS[req.url ?? ''];
    if (list !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
    } else if (req.url === '/not-json') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>rate limit exceeded</html>');
    } else if (req.url === '/hang') {
      // Headers, then nothing: the download deadline must end it.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"sites": [');
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nothing listens on: take one, then free it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function sync(dataDir: string, from: string, url: string, extra: { format?: string; timeout?: string } = {}) {
  const out: string[] = [];
  return runCatalogueSync({ from, url, dataDir, ...extra }, { out: (t) => out.push(t) }, { env: {} }).then(
    (report) => ({ report, out }),
  );
}

/** A data dir whose stored list is the given text, to see that failures leave it alone. */
function dataDirWith(source: string, text: string): { dataDir: string; file: string } {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'catalogues'));
  const file = join(dataDir, 'catalogues', `${source}.json`);
  writeFileSync(file, text);
  return { dataDir, file };
}

describe('catalogue sync', () => {
  it.each([
    ['whatsmyname', '/wmn-data.json', 2, ['Alpha']],
    ['sherlock', '/sherlock.json', 2, ['Alpha', 'Gamma']],
    ['maigret', '/maigret.json', 1, ['Alpha']],
  ])('stores the %s list in our format, usable as --catalogue', async (source, path, entries, names) => {
    const dataDir = tempDir();
    const { report, out } = await sync(dataDir, source, `${base}${path}`);
    const file = join(dataDir, 'catalogues', `${source}.json`);
    expect(report).toMatchObject({
      source,
      url: `${base}${path}`,
      file,
      entries,
      imported: names.length,
      rejected: entries - names.length,
    });
    expect(out.join('\n')).toContain(
      `${source}: ${entries} entries, ${names.length} imported, ${entries - names.length} rejected`,
    );
    expect(out.join('\n')).toContain(`USERSCOUT_CATALOGUE=${file}`);

    const stored = JSON.parse(readFileSync(file, 'utf8')) as { platforms: { name: string }[] };
    expect(stored.platforms.map((p) => p.name)).toEqual(names);
    const loaded = loadCatalogueFrom(file);
    expect(loaded.format).toBe('userscout');
    expect(loaded.problems).toEqual([]);
    expect(loaded.catalogue.platforms.map((p) => p.name)).toEqual(names);
    expect(loaded.catalogue.platforms[0]!.check.url).toContain('alpha.example');
    expect(readdirSync(join(dataDir, 'catalogues'))).toEqual([`${source}.json`]);
  });

  it('says why entries were rejected in the JSON report', async () => {
    const { report, out } = await sync(tempDir(), 'whatsmyname', `${base}/wmn-data.json`, { format: 'json' });
    expect(report.reasons).toHaveLength(1);
    expect(report.reasons[0]!.name).toBe('Beta');
    expect(JSON.parse(out.join('\n'))).toEqual(report);
  });

  it('replaces the stored list with a newer one', async () => {
    const { dataDir, file } = dataDirWith('sherlock', '{"platforms": []}');
    await sync(dataDir, 'sherlock', `${base}/sherlock.json`);
    expect(JSON.parse(readFileSync(file, 'utf8')).platforms).toHaveLength(2);
  });

  it.each([
    [
      'the port is closed',
      'sherlock',
      () => `http://127.0.0.1:${closedPort}/data.json`,
      /connection refused \(ECONNREFUSED\)/,
    ],
    ['the server answers 404', 'sherlock', () => `${base}/missing.json`, /the server answered HTTP 404/],
    ['the body is not JSON', 'whatsmyname', () => `${base}/not-json`, /is not valid JSON/],
    [
      'the list is in another format',
      'whatsmyname',
      () => `${base}/sherlock.json`,
      /is in the sherlock format, not whatsmyname/,
    ],
    [
      'nothing in it imports',
      'whatsmyname',
      () => `${base}/nothing-imports.json`,
      /none of its 1 entries can be imported/,
    ],
    [
      'the download never ends',
      'maigret',
      () => `${base}/hang`,
      /took longer than 300 ms|no answer within 300 ms/,
    ],
  ])('fails when %s, leaving the stored list untouched', async (_label, source, url, message) => {
    const previous = '{"platforms": [], "note": "the list from last week"}';
    const { dataDir, file } = dataDirWith(source, previous);
    const error = await sync(dataDir, source, url(), { timeout: '300' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain(`${file} is unchanged`);
    expect(error?.message).not.toContain('\n');
    expect(readFileSync(file, 'utf8')).toBe(previous);
    expect(readdirSync(join(dataDir, 'catalogues'))).toEqual([`${source}.json`]);
  });

  it('does not create anything when the first sync fails', async () => {
    const dataDir = tempDir();
    await expect(sync(dataDir, 'maigret', `http://127.0.0.1:${closedPort}/`)).rejects.toMatchObject({
      code: 'network_unavailable',
    });
    expect(existsSync(join(dataDir, 'catalogues', 'maigret.json'))).toBe(false);
  });

  it('refuses bad arguments', async () => {
    await expect(sync(tempDir(), 'github', `${base}/x`)).rejects.toThrow(
      '--from must be one of whatsmyname, sherlock, maigret; received github',
    );
    await expect(sync(tempDir(), 'sherlock', 'file:///etc/passwd')).rejects.toThrow(
      '--url must be an http:// or https:// URL',
    );
    await expect(sync(tempDir(), 'sherlock', `${base}/x`, { timeout: 'soon' })).rejects.toThrow(
      '--timeout must be a whole number',
    );
  });

  it('defaults to the projects’ public lists on GitHub', () => {
    for (const url of Object.values(UPSTREAM_URLS))
      expect(url).toMatch(/^https:\/\/raw\.githubusercontent\.com\//);
  });

  it('names DNS failures plainly', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND raw.githubusercontent.com'), {
        code: 'ENOTFOUND',
      }),
    });
    expect(describeDownloadFailure(error)).toBe('host not found (ENOTFOUND)');
  });

  it('exits 1 with one line on stderr from the command line when offline', async () => {
    const { dataDir, file } = dataDirWith('sherlock', 'previous');
    const run = promisify(execFile);
    const result = await run(
      process.execPath,
      [
        ...cliEntry(),
        'catalogue',
        'sync',
        '--from',
        'sherlock',
        '--url',
        `http://127.0.0.1:${closedPort}/data.json`,
        '--data-dir',
        dataDir,
      ],
      { timeout: 60_000 },
    ).then(
      () => ({ code: 0, stderr: '', stdout: '' }),
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `userscout: cannot download http://127.0.0.1:${closedPort}/data.json: connection refused (ECONNREFUSED); ${file} is unchanged\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('previous');
  }, 90_000);
});
