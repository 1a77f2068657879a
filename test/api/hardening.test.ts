/**
 * What a hostile or careless client can send, driven over real HTTP and
 * raw sockets against the real service on the simulated web: names that are not
 * well-formed text, names that lowercasing turns into other names, requests Node's
 * HTTP parser refuses, security headers, the log line of a full queue, and
 * searches readable only with the key that started them.
 */
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/cli/keys.js';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/service.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import {
  json,
  pollUntilDone,
  postSearch,
  type RunningService,
  serviceForBlock,
  startService,
  tempDir,
} from '../support/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KELVIN = '\u212Aelvin'; // KELVIN SIGN: toLowerCase() makes it the letter k

// Plain sends the name as given (its rule admits any printable name, so not only ASCII);
// Lower and Loose lowercase it (Lower with a pattern, Loose without); "kelvin" has an
// account everywhere, so a folded Kelvin would be a hit.
const catalogue = catalogueOf([
  entry('Plain', { category: 'social', username: { pattern: '^\\S+$' } }),
  entry('Lower', {
    category: 'coding',
    username: { pattern: '^[a-z0-9]+$', lowercase: true },
    known: { claimed: ['alice'], unclaimed: ['nobody7'] },
  }),
  entry('Loose', { category: 'gaming', username: { lowercase: true } }),
]);
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => ['kelvin', 'sam', ...p.known.claimed],
  latency: () => 0,
});
const sim = new SimWeb({ routes: emulation.routes });

const running: RunningService[] = [];
async function serve(overrides: Parameters<typeof startService>[2] = {}): Promise<RunningService> {
  const s = await startService(sim, catalogue, overrides);
  running.push(s);
  return s;
}

beforeAll(async () => {
  await sim.start();
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.service.close();
});
afterAll(async () => {
  await sim.stop();
});

function expectErrorShape(
  r: { status: number; headers: Headers; body: unknown },
  status: number,
  code: string,
) {
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ code, error: expect.any(String), requestId: expect.any(String) });
  expect(r.headers.get('x-request-id')).toBe((r.body as { requestId: string }).requestId);
}

/** Requests the sim has answered for a platform's host so far. */
const hitsOn = (name: string) => sim.hits.get(`${name.toLowerCase()}.test`) ?? 0;

describe('names that are not well-formed text', () => {
  it('refuses a lone surrogate with 400 invalid_username and words a person understands', async () => {
    const { url } = await serve();
    // Written as JSON escapes: JSON.stringify would keep them escaped too, but be explicit.
    for (const raw of ['{"username":"\\ud800abc"}', '{"username":"abc\\udc00"}']) {
      const r = await postSearch(url, raw);
      expectErrorShape(r, 400, 'invalid_username');
      expect(r.body.error).toMatch(/^username is not valid text: it holds half of a character \(U\+D[89A-F]/);
    }
    // A character written as a surrogate pair is one character, and fine.
    const paired = await postSearch(url, '{"username":"sam\\ud83d\\ude00"}');
    expect(paired.status).toBe(200);
  });
});

describe('lowercasing never turns a name into another one', () => {
  it('marks the KELVIN SIGN name invalid on lowercasing platforms, sending them nothing', async () => {
    const { url } = await serve();
    const before = { Lower: hitsOn('Lower'), Loose: hitsOn('Loose'), Plain: hitsOn('Plain') };
    const started = await postSearch(url, { username: KELVIN });
    expect(started.status).toBe(200);
    const done = await pollUntilDone(url, started.body.queryId, '&include=all');
    expect(done.body.status).toBe('completed');
    const by = Object.fromEntries(
      (done.body.results as { platform: string; status: string; reason?: string }[]).map((r) => [
        r.platform,
        r,
      ]),
    );
    expect(by.Lower).toMatchObject({ status: 'invalid', reason: 'username_rule' });
    expect(by.Loose).toMatchObject({ status: 'invalid', reason: 'username_rule' });
    expect(by.Plain?.status).toBe('miss'); // asked about the name as given, which has no account
    expect(done.body.progress.hits).toBe(0);
    expect(hitsOn('Lower')).toBe(before.Lower);
    expect(hitsOn('Loose')).toBe(before.Loose);
    expect(hitsOn('Plain')).toBeGreaterThan(before.Plain);
  });

  it('still lowercases an ordinary capital', async () => {
    const { url } = await serve();
    const started = await postSearch(url, { username: 'Kelvin' });
    const done = await pollUntilDone(url, started.body.queryId);
    expect((done.body.results as { platform: string }[]).map((r) => r.platform).sort()).toEqual([
      'Loose',
      'Lower',
    ]);
  });
});

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawExchange(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    }, 10_000);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined); // the server may reset after answering
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

function parseAnswer(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe("requests Node's HTTP parser refuses get our error shape", () => {
  // One service for the block: each case checks it is unharmed after its bad request.
  const shared = serviceForBlock(sim, catalogue);
  it.each([
    [
      'headers over 16 KB',
      `GET /api/platforms HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
      /too large/,
    ],
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'bad_request', /not valid HTTP/],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'bad_request',
      /Transfer-Encoding can't be present with Content-Length/,
    ],
    // Not the parser but Fastify's router, before any hook: the same shape.
    [
      'a path that is not valid percent-encoding',
      'GET /api/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'bad_request',
      /percent-encoding/,
    ],
  ])('%s', async (_what, request, status, code, message) => {
    const { url } = shared();
    const answer = parseAnswer(await rawExchange(url, request));
    expect(answer.status).toBe(status);
    expect(Object.keys(answer.body).sort()).toEqual(['code', 'error', 'requestId']);
    expect(answer.body).toMatchObject({ code, error: expect.stringMatching(message) });
    expect(answer.body.requestId).toMatch(UUID);
    expect(answer.headers['x-request-id']).toBe(answer.body.requestId);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(answer.body)));
    // The service is unharmed.
    expect((await json(`${url}/api/platforms`)).status).toBe(200);
  });

  it('documents them in the OpenAPI document', async () => {
    const { url } = shared();
    const doc = (await json(`${url}/openapi.json`)).body;
    expect(doc.info.description).toMatch(/HTTP parser/);
    for (const [path, method] of [
      ['/api/search', 'post'],
      ['/api/search', 'get'],
      ['/api/platforms', 'get'],
    ] as const) {
      expect(doc.paths[path][method].responses['431']).toMatchObject({
        description: expect.stringContaining('headers_too_large'),
      });
    }
  });
});

describe('security headers', () => {
  it('sends nosniff with every API answer, and no framing of /docs', async () => {
    const { url } = await serve();
    for (const path of [
      '/api/platforms',
      '/api/search?id=00000000-0000-4000-8000-000000000000',
      '/api/nope',
    ]) {
      expect((await fetch(`${url}${path}`)).headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const docs = await fetch(`${url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    const csp = docs.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    // Inline code is never allowed; inline style only as attributes (and one style element by hash).
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).not.toMatch(/style-src(-elem)? [^;]*unsafe-inline/);
  });
});

describe('a full queue is expected load', () => {
  it('logs 503 queue_full as a warning without a stack', async () => {
    const lines: Record<string, unknown>[] = [];
    const dataDir = tempDir();
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    writeFileSync(join(dataDir, 'sim-ca.pem'), sim.caCert);
    const config = loadConfig(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        connectTo: sim.connectTo,
        caFile: join(dataDir, 'sim-ca.pem'),
        refusePrivate: false,
        maxRunningSearches: 1,
        maxQueuedSearches: 0,
        // The queue is the API thread's: a search thread would only cost its start.
        searchThread: false,
      },
      {},
    );
    const service = await createService(config, {
      catalogue,
      logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    const url = await service.listen();
    try {
      const statuses: number[] = [];
      // One search runs and none may wait: some later start meets a full queue.
      for (let i = 0; i < 5 && !statuses.includes(503); i++)
        statuses.push((await postSearch(url, { username: `q${i}` })).status);
      expect(statuses).toContain(503);
      const logged = lines.filter((l) => l.code === 'queue_full' || JSON.stringify(l).includes('queue_full'));
      expect(logged.length).toBeGreaterThan(0);
      for (const line of logged) {
        if (line.msg === 'request completed') continue;
        expect(line.level).toBe(40);
        expect(JSON.stringify(line)).not.toMatch(/stack|\bat .+\.(ts|js):\d+/);
      }
      expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    } finally {
      await service.close();
    }
  });
});

describe('private searches', () => {
  it('lets a professional key start a search only it can read; anyone else gets 404', async () => {
    const s = await serve();
    const owner = await createKey(s.service.store, 'owner', 'professional');
    const other = await createKey(s.service.store, 'other', 'professional');
    const started = await postSearch(s.url, { username: 'sam', private: true }, { 'x-api-key': owner.key });
    expect(started.status).toBe(200);
    const id = started.body.queryId as string;
    const asOwner = { 'x-api-key': owner.key };

    const readers: [string, Record<string, string>][] = [
      ['no key', {}],
      ['another professional key', { 'x-api-key': other.key }],
    ];
    const refusedEverywhere = async () => {
      for (const [who, headers] of readers) {
        for (const query of ['', '&include=all']) {
          const r = await json(`${s.url}/api/search?id=${id}${query}`, { headers });
          expectErrorShape(r, 404, 'search_not_found');
          expect(r.body.error, who).toBe(
            (await json(`${s.url}/api/search?id=${crypto.randomUUID()}`)).body.error,
          );
        }
        const events = await json(`${s.url}/api/search/${id}/events`, { headers });
        expectErrorShape(events, 404, 'search_not_found');
        const report = await json(`${s.url}/api/search/${id}/report.html`, { headers });
        expectErrorShape(report, 404, 'search_not_found');
      }
    };
    await refusedEverywhere();

    const done = await pollUntilDone(`${s.url}`, id, '', 100, 30_000, asOwner);
    expect(done.body).toMatchObject({ status: 'completed', username: 'sam' });
    // Finished answers are cached: the cache must not hand them to anyone else.
    expect((await json(`${s.url}/api/search?id=${id}`, { headers: asOwner })).status).toBe(200);
    expect((await json(`${s.url}/api/search?id=${id}&include=all`, { headers: asOwner })).status).toBe(200);
    expect((await json(`${s.url}/api/search/${id}/report.html`, { headers: asOwner })).status).toBe(200);
    await refusedEverywhere();

    const stream = await fetch(`${s.url}/api/search/${id}/events`, {
      headers: asOwner,
      signal: AbortSignal.timeout(10_000),
    });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('event: done');
  });

  it('keeps private searches out of the shared outcome cache, neither read nor written', async () => {
    const s = await serve();
    const owner = await createKey(s.service.store, 'owner', 'professional');
    const asOwner = { 'x-api-key': owner.key };
    const sent = () => hitsOn('Plain') + hitsOn('Lower') + hitsOn('Loose');
    const searchAndCount = async (username: string, isPrivate: boolean) => {
      const before = sent();
      const started = await postSearch(s.url, { username, private: isPrivate }, isPrivate ? asOwner : {});
      expect(started.status).toBe(200);
      const done = await pollUntilDone(s.url, started.body.queryId, '&include=all', 100, 30_000, asOwner);
      expect(done.body.status).toBe('completed');
      const reused = (done.body.results as { evidence: { cachedAt?: number } }[]).filter(
        (r) => r.evidence.cachedAt !== undefined,
      ).length;
      return { sent: sent() - before, reused };
    };
    // A private search leaves nothing behind: the next search of the name checks every site.
    expect(await searchAndCount('priv1', true)).toMatchObject({ reused: 0 });
    const after = await searchAndCount('priv1', false);
    expect(after.reused).toBe(0);
    expect(after.sent).toBeGreaterThanOrEqual(3);
    // Nor does it read what others left: the public search just cached the name.
    expect(await searchAndCount('priv1', false)).toMatchObject({ sent: 0, reused: 3 });
    const mine = await searchAndCount('priv1', true);
    expect(mine.reused).toBe(0);
    expect(mine.sent).toBeGreaterThanOrEqual(3);
  });

  it('refuses private: true without a professional key with 403 private_not_allowed, counting nothing', async () => {
    const s = await serve();
    const free = await createKey(s.service.store, 'a free key', 'free');
    for (const headers of [{}, { 'x-api-key': free.key }] as Record<string, string>[]) {
      const r = await postSearch(s.url, { username: 'sam', private: true }, headers);
      expectErrorShape(r, 403, 'private_not_allowed');
      expect(r.body.error).toMatch(/professional API key/);
    }
    // A search not made private stays readable by anyone with its id.
    const open = await postSearch(s.url, { username: 'sam', private: false });
    expect(open.status).toBe(200);
    const owner = await createKey(s.service.store, 'pro', 'professional');
    const keyed = await postSearch(s.url, { username: 'sam' }, { 'x-api-key': owner.key });
    for (const id of [open.body.queryId, keyed.body.queryId])
      expect((await json(`${s.url}/api/search?id=${id}`)).status).toBe(200);
  });
});
