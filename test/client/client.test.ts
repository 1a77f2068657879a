/**
 * The client module against a real service on loopback (with the simulated
 * web), and against small fake servers for what a real one rarely does: 429
 * with Retry-After, a live-event stream that drops mid-search, a bad key.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FollowEvent, UserscoutClient, UserscoutClientError } from '../../src/client/index.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, type RunningService, startService } from '../support/service.js';

async function fakeServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const ID = '0b6a3c1e-8f7d-4c2b-9a1e-5d4c3b2a1f00';
const result = (n: number) => ({
  platform: `P${n}`,
  platformId: `p${n}`,
  category: 'social',
  url: `https://p${n}.test/u/alice`,
  status: n % 2 ? 'hit' : 'miss',
  responseTime: 5,
  evidence: { rule: 'status 200', attempts: 1 },
});
const frame = (event: string, data: unknown, id?: number) =>
  `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('UserscoutClient against a real service', () => {
  const specs = [
    entry('Alpha'),
    entry('Bravo', { known: { claimed: ['bob'], unclaimed: ['x-none-1'] } }),
    entry('Charlie'),
  ];
  const catalogue = catalogueOf(specs);
  const sim = new SimWeb({ routes: emulateCatalogue(catalogue.platforms, catalogue.shields).routes });
  let running: RunningService;

  beforeAll(async () => {
    await sim.start();
    running = await startService(sim, catalogue);
  });
  afterAll(async () => {
    await running?.service.close();
    await sim.stop();
  });

  it('a search through the client gives exactly the outcomes the API gives, each event once', async () => {
    const client = new UserscoutClient({ baseUrl: running.url, deadlineMs: 30_000 });
    const events: FollowEvent[] = [];
    const search = await client.search('alice', { all: true, onEvent: (e) => events.push(e) });
    expect(search.status).toBe('completed');
    const api = await json(`${running.url}/api/search?id=${search.queryId}&include=all`);
    expect(search.results).toEqual(api.body.results);
    expect(search.results.map((r) => r.status).sort()).toEqual(['hit', 'hit', 'miss']);
    const streamed = events.flatMap((e) => (e.type === 'result' ? [e.result.platformId] : []));
    expect(streamed.sort()).toEqual(['alpha', 'bravo', 'charlie']);
    expect(events.at(-1)).toEqual({ type: 'done', status: 'completed' });
    // Polling gives the same outcomes when events are not used.
    const polled: string[] = [];
    for await (const e of client.follow(search.queryId, { poll: true }))
      if (e.type === 'result') polled.push(e.result.platformId);
    expect(polled.sort()).toEqual(['alpha', 'bravo', 'charlie']);
  });

  it('lists platforms, and refuses a bad name before calling, by the server rule', async () => {
    const client = new UserscoutClient({ baseUrl: running.url });
    const list = await client.platforms();
    expect(list.platforms.map((p) => p.id).sort()).toEqual(['alpha', 'bravo', 'charlie']);
    const error = await client.start('a b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserscoutClientError);
    expect((error as UserscoutClientError).code).toBe('invalid_username');
    expect((error as UserscoutClientError).status).toBeUndefined();
  });

  it('a bad key ends at once with the server code and request id', async () => {
    const client = new UserscoutClient({ baseUrl: running.url, apiKey: 'us_not_a_real_key' });
    const error = (await client.start('alice').catch((e: unknown) => e)) as UserscoutClientError;
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(error.requestId).toMatch(/.+/);
  });
});

describe('UserscoutClient on a refusing or failing server', () => {
  it('waits as Retry-After says on 429 and sends the start exactly three times', async () => {
    const seen: number[] = [];
    const fake = await fakeServer((request, response) => {
      seen.push(Date.now());
      if (seen.length <= 2) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        response.end(
          JSON.stringify({ error: 'slow down', code: 'rate_limited', requestId: 'r1', retryAfter: 1 }),
        );
        return;
      }
      expect(request.headers['x-api-key']).toBe('k1');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ queryId: ID, status: 'running', totalPlatforms: 3, estimatedTime: 2 }));
    });
    try {
      const client = new UserscoutClient({ baseUrl: fake.url, apiKey: 'k1' });
      const started = await client.start('alice');
      expect(started.queryId).toBe(ID);
      expect(seen).toHaveLength(3);
      expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(900);
      expect(seen[2]! - seen[1]!).toBeGreaterThanOrEqual(900);
    } finally {
      await fake.close();
    }
  });

  it('a deadline shorter than the wait ends with a typed rate-limit error', async () => {
    let calls = 0;
    const fake = await fakeServer((_request, response) => {
      calls++;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
      response.end(
        JSON.stringify({ error: 'slow down', code: 'rate_limited', requestId: 'r2', retryAfter: 30 }),
      );
    });
    try {
      const client = new UserscoutClient({ baseUrl: fake.url, deadlineMs: 2_000 });
      const started = Date.now();
      const error = (await client.start('alice').catch((e: unknown) => e)) as UserscoutClientError;
      expect(error).toBeInstanceOf(UserscoutClientError);
      expect(error.code).toBe('rate_limited');
      expect(error.retryAfterSeconds).toBe(30);
      expect(error.requestId).toBe('r2');
      expect(calls).toBe(1);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await fake.close();
    }
  });

  it('a start whose arrival is unknown is not sent again', async () => {
    let calls = 0;
    const fake = await fakeServer((request) => {
      calls++;
      request.socket.destroy(); // the request arrived; the answer never comes
    });
    try {
      const client = new UserscoutClient({ baseUrl: fake.url, deadlineMs: 10_000 });
      const error = (await client.start('alice').catch((e: unknown) => e)) as UserscoutClientError;
      expect(error.code).toBe('network_error');
      expect(calls).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('resumes a dropped event stream with Last-Event-ID and yields every outcome once', async () => {
    const lastIds: (string | undefined)[] = [];
    const fake = await fakeServer((request, response) => {
      lastIds.push(request.headers['last-event-id'] as string | undefined);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (lastIds.length === 1) {
        response.write(frame('result', result(1), 1) + frame('result', result(2), 2));
        // Dropped mid-search, half-way through an event.
        setTimeout(() => response.socket?.destroy(), 50);
        response.write('event: result\ndata: {"platf');
        return;
      }
      // The server resends from after Last-Event-ID; one duplicate slips in, as a replay may.
      response.write(frame('result', result(2), 2));
      response.write(frame('result', result(3), 3) + frame('progress', { checked: 3, total: 3, hits: 2 }));
      response.end(frame('done', { status: 'completed' }));
    });
    try {
      const client = new UserscoutClient({
        baseUrl: fake.url,
        backoff: { baseDelayMs: 10, maxDelayMs: 50 },
      });
      const events: FollowEvent[] = [];
      for await (const event of client.follow(ID)) events.push(event);
      const ids = events.flatMap((e) => (e.type === 'result' ? [e.result.platformId] : []));
      expect(ids).toEqual(['p1', 'p2', 'p3']);
      expect(lastIds).toEqual([undefined, '2']);
      expect(events.at(-1)).toEqual({ type: 'done', status: 'completed' });
    } finally {
      await fake.close();
    }
  });

  it('a later answer of a platform already reported comes once, marked as replacing it (events and polling)', async () => {
    const failed = {
      ...result(2),
      status: 'error',
      reason: 'timeout',
      responseTime: 9000,
      evidence: { rule: 'timeout', attempts: 2 },
    };
    const later = { ...result(2), status: 'hit', responseTime: 40 };
    const fake = await fakeServer((request, response) => {
      if (request.url?.endsWith('/events')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(frame('result', result(1), 1) + frame('result', failed, 2));
        // The platform checked again (a hit links to it): a later seq, and a replayed frame.
        response.write(frame('result', later, 4) + frame('result', later, 4));
        response.end(frame('done', { status: 'completed' }));
        return;
      }
      // Polling sees the earlier answer first, then the later one in its place.
      polls++;
      response.writeHead(200, { 'content-type': 'application/json' });
      const running = polls === 1;
      response.end(
        JSON.stringify({
          id: ID,
          queryId: ID,
          status: running ? 'running' : 'completed',
          results: running ? [result(1), failed] : [result(1), later],
          progress: { checked: 2, total: 2, hits: running ? 1 : 2 },
        }),
      );
    });
    let polls = 0;
    try {
      const client = new UserscoutClient({ baseUrl: fake.url, pollIntervalMs: 10 });
      for (const poll of [false, true]) {
        const events: FollowEvent[] = [];
        for await (const event of client.follow(ID, { poll })) events.push(event);
        const results = events.flatMap((e) =>
          e.type === 'result' ? [[e.result.platformId, e.result.status, e.replaces === true]] : [],
        );
        expect(results).toEqual([
          ['p1', 'hit', false],
          ['p2', 'error', false],
          ['p2', 'hit', true],
        ]);
      }
    } finally {
      await fake.close();
    }
  });

  it('aborting stops waiting at once and asks the service to cancel the search', async () => {
    const methods: string[] = [];
    const fake = await fakeServer((request, response) => {
      methods.push(`${request.method} ${request.url}`);
      if (request.method === 'POST') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ queryId: ID, status: 'running', totalPlatforms: 3, estimatedTime: 2 }));
      } else if (request.method === 'DELETE') {
        response.writeHead(204).end();
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': open\n\n'); // and nothing more
      }
    });
    try {
      const client = new UserscoutClient({ baseUrl: fake.url });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const error = (await client
        .search('alice', { signal: controller.signal })
        .catch((e: unknown) => e)) as UserscoutClientError;
      expect(error.code).toBe('aborted');
      expect(methods).toContain(`DELETE /api/search/${ID}`);
    } finally {
      await fake.close();
    }
  });

  it('refuses a base URL with credentials or another scheme', () => {
    expect(() => new UserscoutClient({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new UserscoutClient({ baseUrl: 'http://u:p@x' })).toThrow(/credentials/);
    expect(() => new UserscoutClient({ baseUrl: 'not a url' })).toThrow(/absolute/);
  });
});

describe('UserscoutClient and redirects', () => {
  it('sends the key across a redirect within the origin, never to another origin', async () => {
    const seen: { server: string; path: string; key: string | undefined; auth: string | undefined }[] = [];
    const record = (server: string, request: IncomingMessage) =>
      seen.push({
        server,
        path: request.url ?? '',
        key: request.headers['x-api-key'] as string | undefined,
        auth: request.headers.authorization,
      });
    const other = await fakeServer((request, response) => {
      record('other', request);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"platforms":[],"total":0}');
    });
    const home = await fakeServer((request, response) => {
      record('home', request);
      if (request.url?.startsWith('/api/platforms'))
        response.writeHead(307, { location: '/moved/platforms' }).end();
      else response.writeHead(302, { location: `${other.url}/api/platforms` }).end();
    });
    try {
      const client = new UserscoutClient({ baseUrl: home.url, apiKey: 'usk_secret', maxAttempts: 1 });
      expect(await client.platforms()).toEqual({ platforms: [], total: 0 });
      expect(seen.map((s) => [s.server, s.path, s.key])).toEqual([
        ['home', '/api/platforms', 'usk_secret'],
        ['home', '/moved/platforms', 'usk_secret'],
        ['other', '/api/platforms', undefined],
      ]);
      expect(seen.every((s) => s.auth === undefined)).toBe(true);
    } finally {
      await other.close();
      await home.close();
    }
  });
});
