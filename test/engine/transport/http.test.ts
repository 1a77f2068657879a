import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../../src/engine/transport/http.js';
import type { CheckRequest } from '../../../src/engine/verdict/request.js';
import type { ResponseView } from '../../../src/engine/verdict/response-view.js';

/** Bodies sent as the given byte chunks, a flush apart, so the reader sees them one by one. */
const BODIES: Record<string, Buffer[]> = {
  ascii: [Buffer.from('<html>'.padEnd(20_000, 'a')), Buffer.from('<p>profile of alice</p></html>')],
  // 'é' is C3 A9: its two bytes arrive in different chunks, after ASCII chunks.
  split: [
    Buffer.from('a'.repeat(5000)),
    Buffer.concat([Buffer.from('caf'), Buffer.from([0xc3])]),
    Buffer.concat([Buffer.from([0xa9]), Buffer.from(' — 東京 ok')]),
    Buffer.from(' then ASCII again'),
  ],
  bom: [Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":true}')],
  // Its second chunk comes long after the first: a reader that decides on the first never sees it.
  held: [Buffer.from('<html>'.padEnd(20_000, 'a')), Buffer.from('<p>profile of alice</p></html>')],
  invalid: [Buffer.from('abc'), Buffer.from([0xff, 0xfe]), Buffer.from('def')],
};

let server: Server;
let base: string;
const dispatcher = new Agent({ connections: 2 });

/** Which connection each request came on: the server numbers its sockets. */
let sockets = 0;
const socketIds = new WeakMap<object, number>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    if (req.method === 'HEAD') {
      if (!socketIds.has(req.socket)) socketIds.set(req.socket, ++sockets);
      res.writeHead(200, { 'x-connection': String(socketIds.get(req.socket)) }).end();
      return;
    }
    if (req.url === '/connection') {
      if (!socketIds.has(req.socket)) socketIds.set(req.socket, ++sockets);
      res.writeHead(200).end(`connection ${socketIds.get(req.socket)}`);
      return;
    }
    // /sized/NAME: the same body, its length told in Content-Length.
    const sized = (req.url ?? '').startsWith('/sized/');
    const chunks = BODIES[(req.url ?? '/').slice(sized ? 7 : 1)];
    if (!chunks) {
      res.writeHead(404).end('no such body');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      ...(sized ? { 'content-length': String(Buffer.concat(chunks).length) } : {}),
    });
    for (const chunk of chunks) {
      res.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, req.url === '/held' ? 3_000 : 5));
    }
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await dispatcher.close();
  server.close();
});

function get(path: string): CheckRequest {
  return {
    username: 'alice',
    url: `${base}${path}`,
    origin: base,
    method: 'GET',
    headers: {},
    body: undefined,
    redirects: 'manual',
  };
}

async function read(path: string, decide: (view: ResponseView) => string | undefined = () => undefined) {
  return exchange(get(path), {
    dispatcher,
    signal: AbortSignal.timeout(5000),
    bodyCapBytes: 1 << 20,
    maxRedirects: 0,
    decide,
  });
}

describe('exchange: reading the body', () => {
  it('reads an ASCII body whole, chunk after chunk', async () => {
    const { view, bytesRead, decision } = await read('/ascii');
    const expected = Buffer.concat(BODIES.ascii!).toString('utf8');
    expect(view.complete).toBe(true);
    expect(decision).toBeUndefined();
    expect(view.body).toBe(expected);
    expect(bytesRead).toBe(Buffer.byteLength(expected));
  });

  it('decodes a UTF-8 character split across chunks that follow ASCII ones', async () => {
    const { view } = await read('/split');
    expect(view.body).toBe(Buffer.concat(BODIES.split!).toString('utf8'));
    expect(view.body).toContain('café — 東京 ok then ASCII again');
    expect(view.body).not.toContain('\uFFFD');
  });

  it('asks the classifier as chunks arrive, but not again before the end once a known rest is small', async () => {
    const asked = (path: string) => {
      const lengths: number[] = [];
      return read(path, (v) => {
        lengths.push(v.body.length);
        return undefined;
      }).then(({ view }) => ({ view, lengths }));
    };
    const chunked = await asked('/ascii');
    // Once on the status and headers, then on the body as it came.
    expect(chunked.lengths[0]).toBe(0);
    expect(chunked.lengths.length).toBeGreaterThan(1);
    const sized = await asked('/sized/ascii');
    expect(sized.lengths).toEqual([0]);
    expect(sized.view.body).toBe(chunked.view.body);
    expect(sized.view.complete).toBe(true);
  });

  it('drops a UTF-8 byte order mark and replaces invalid bytes, as TextDecoder does', async () => {
    expect((await read('/bom')).view.body).toBe('{"ok":true}');
    expect((await read('/invalid')).view.body).toBe('abc\uFFFD\uFFFDdef');
  });

  it('stops reading once the classifier has decided', async () => {
    const { view, bytesRead, decision } = await read('/held', (v) =>
      v.body.length > 0 ? `decided at ${v.body.length}` : undefined,
    );
    expect(view.complete).toBe(false);
    // The decision that stopped the reading comes with the very view it was made on.
    expect(decision).toBe(`decided at ${view.body.length}`);
    expect(bytesRead).toBeLessThan(Buffer.concat(BODIES.held!).length);
    expect(view.body.startsWith('<html>')).toBe(true);
  });
});

describe('exchange: connections', () => {
  it('answers once its connection is free again, so a request sent at once after it reuses it', async () => {
    const pool = new Agent({ connections: 4 });
    try {
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { view } = await exchange(get('/connection'), {
          dispatcher: pool,
          signal: AbortSignal.timeout(5000),
          bodyCapBytes: 1 << 20,
          maxRedirects: 0,
          decide: () => undefined,
        });
        seen.push(view.body);
      }
      expect(new Set(seen).size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('keeps the connection of a HEAD answer for the next request (undici would close it)', async () => {
    const pool = new Agent({ connections: 4 });
    try {
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { view } = await exchange(
          { ...get('/connection'), method: 'HEAD' },
          {
            dispatcher: pool,
            signal: AbortSignal.timeout(5000),
            bodyCapBytes: 1 << 20,
            maxRedirects: 0,
            decide: () => undefined,
          },
        );
        seen.push(view.headers['x-connection']!);
      }
      expect(new Set(seen).size).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
