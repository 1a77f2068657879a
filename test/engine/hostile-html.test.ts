/**
 * Pages built to make a backtracking regular expression run for minutes, served
 * as the profile page of a platform on loopback: a search of them ends within
 * its checks' timeout with the verdict their status rule gives, and another
 * search on the same thread goes on at the same time.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const MB = 1 << 20;
const filled = (unit: string, length: number) =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** Bytes no parser should choke on, the same each run. */
function binary(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 0x2545f491;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Each hostile page by the path segment of its platform. */
const PAGES: Record<string, string | Buffer> = {
  'a-letters': `<a ${'q'.repeat(250_000)}`,
  'a-letters-closed': `<a ${'q'.repeat(250_000)}>`,
  'ld-json-openers': filled('<script type=application/ld+json ', MB),
  'meta-unclosed': filled('<meta ', MB),
  'title-unclosed': filled('<title', MB),
  'deep-nesting': `<title>Deep Alice</title>${'<div>'.repeat(100_000)}`,
  'huge-attribute': `<meta property="og:title" content="${'x'.repeat(MB)}">`,
  'unclosed-tags': filled('<a href="x', MB),
  'open-comment': `<title>Comment Alice</title><!--${filled('<meta content=x>', MB)}`,
  binary: binary(MB),
};

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, shape, name] = (req.url ?? '').split('/');
    // The calm platform answers a little later, so its check is in flight while the hostile pages are read.
    if (shape === 'calm') {
      setTimeout(() => {
        res.writeHead(name === 'alice' ? 200 : 404, { 'content-type': 'text/html' });
        res.end('<title>Calm Alice</title>');
      }, 300);
      return;
    }
    const page = PAGES[shape ?? ''];
    if (page === undefined) {
      res.writeHead(404).end();
      return;
    }
    // A control check (any other name) reads the same page with a 404: a miss, and its title is read too.
    res.writeHead(name === 'alice' ? 200 : 404, { 'content-type': 'text/html' });
    res.end(page);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const TIMEOUT_MS = 5_000;
/** Generous: a loaded two-core machine reads each page in well under a second. */
const BOUND_MS = 20_000;

const platform = (shape: string) =>
  entry(`Hostile ${shape}`, {
    home: `http://${shape}.test/`,
    profile: `http://${shape}.test/${shape}/{username}`,
  });

function engineOf(): Engine {
  const config = loadConfig(
    {
      connectTo: [`::127.0.0.1:${port}`],
      refusePrivate: false,
      timeoutMs: TIMEOUT_MS,
      retries: 0,
      budgetPerSecond: 1000,
      budgetBurst: 100,
    },
    {},
    'cli',
  );
  return createEngine(config, catalogueOf([...Object.keys(PAGES), 'calm'].map(platform), false));
}

async function timedSearch(engine: Engine, ids: readonly string[]) {
  const started = performance.now();
  const outcomes: Outcome[] = [];
  const platforms = engine.catalogue.platforms.filter((p) => ids.includes(p.id));
  for await (const outcome of engine.search('alice', platforms)) outcomes.push(outcome);
  return { outcomes, ms: performance.now() - started };
}

describe('a search of hostile pages', () => {
  it(
    'ends in time with the verdict of the status rule, while a search beside it goes on',
    async () => {
      const engine = engineOf();
      try {
        const all = engine.catalogue.platforms;
        const hostile = all.filter((p) => !p.id.includes('calm')).map((p) => p.id);
        const calm = all.filter((p) => p.id.includes('calm')).map((p) => p.id);
        expect(hostile).toHaveLength(Object.keys(PAGES).length);
        const [bad, beside] = await Promise.all([timedSearch(engine, hostile), timedSearch(engine, calm)]);

        expect(bad.ms).toBeLessThan(TIMEOUT_MS + BOUND_MS);
        for (const outcome of bad.outcomes) expect(outcome.status, outcome.platform).toBe('hit');
        const byShape = (shape: string) => bad.outcomes.find((o) => o.platformId.endsWith(shape));
        expect(byShape('deep-nesting')?.profile?.fullName).toBe('Deep Alice');
        expect(byShape('open-comment')?.profile?.fullName).toBe('Comment Alice');
        // Past the part of the page read for profile details: nothing of it is kept.
        expect(byShape('huge-attribute')?.profile?.fullName).toBeUndefined();

        expect(beside.ms).toBeLessThan(TIMEOUT_MS + BOUND_MS);
        expect(beside.outcomes).toHaveLength(1);
        expect(beside.outcomes[0]).toMatchObject({ status: 'hit', profile: { fullName: 'Calm Alice' } });
        // Its check was answered, not cut by its timer: the thread was free to read its answer.
        expect(beside.outcomes[0]!.responseTime).toBeLessThan(TIMEOUT_MS);
      } finally {
        await engine.close();
      }
    },
    TIMEOUT_MS + BOUND_MS + 10_000,
  );
});
