/**
 * The engine's real code path (URLs, TLS, connect-to, undici) against the
 * simulated web: every behaviour gives the right outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/engine.js';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { PROFILE_READ_CHARS } from '../src/engine/verdict/profile-extract.js';
import type { Behaviour } from '../src/sim/behaviour.js';
import { SimWeb } from '../src/sim/server.js';
import { catalogueOf, entry } from './support/catalogue.js';
import { engineFor } from './support/engine.js';

const PAGE = (inner: string) =>
  `<html><head><title>x</title></head><body>${'<p>filler</p>'.repeat(200)}${inner}</body></html>`;

/** A body given in bytes, served compressed by two hosts: the second gets the compression kept. */
const BYTES_PAGE = Buffer.from(PAGE('alice-bytes'), 'utf8');

/** A hit-only entry's rules: the marker tells an account, nothing tells a missing one. */
const HIT_ONLY = { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] };

/** Each case: a platform entry, what its host does for the username 'alice', and the outcome expected. */
const cases: {
  name: string;
  spec?: Parameters<typeof entry>[1];
  behave: Behaviour;
  expect: Partial<Outcome>;
}[] = [
  {
    name: 'Status Hit',
    behave: { kind: 'respond', status: 200, body: PAGE('alice') },
    expect: { status: 'hit' },
  },
  { name: 'Status Miss', behave: { kind: 'respond', status: 404, body: 'nope' }, expect: { status: 'miss' } },
  {
    name: 'Soft404 Miss',
    spec: {
      detect: {
        exists: [{ status: [200] }, { text: 'class="profile"' }],
        missing: [{ text: 'User not found' }],
      },
    },
    behave: { kind: 'respond', status: 200, body: PAGE('<h1>User not found</h1>') },
    expect: { status: 'miss' },
  },
  {
    name: 'Soft404 Hit',
    spec: {
      detect: {
        exists: [{ status: [200] }, { text: 'class="profile"' }],
        missing: [{ text: 'User not found' }],
      },
    },
    behave: { kind: 'respond', status: 200, body: PAGE('<div class="profile">alice</div>') },
    expect: { status: 'hit' },
  },
  {
    name: 'Login Wall',
    spec: {
      detect: {
        exists: [{ status: [200] }, { text: 'class="profile"' }],
        missing: [{ text: 'User not found' }],
      },
    },
    behave: { kind: 'respond', status: 200, body: PAGE('<form action="/login">Sign in</form>') },
    expect: { status: 'unknown', reason: 'unexpected_response' },
  },
  {
    name: 'Redirect Miss',
    spec: { detect: { exists: [{ status: [200] }], missing: [{ redirect: '/login' }] } },
    behave: { kind: 'respond', status: 302, headers: { location: '/login?next=x' } },
    expect: { status: 'miss' },
  },
  {
    name: 'Redirect Follow',
    spec: {
      check: { redirects: 'follow' },
      detect: { exists: [{ status: [200] }], missing: [{ redirect: '/home' }] },
    },
    behave: { kind: 'respond', status: 301, headers: { location: 'https://redirect-follow.test/home' } },
    expect: { status: 'miss' },
  },
  {
    name: 'Json Hit',
    spec: {
      check: { url: 'https://json-hit.test/api/users/{username}' },
      detect: { exists: [{ json: 'data.id' }], missing: [{ json: 'data', equals: null }] },
    },
    behave: {
      kind: 'respond',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"data":{"id":42}}',
    },
    expect: { status: 'hit' },
  },
  {
    name: 'Json Miss',
    spec: {
      check: { url: 'https://json-miss.test/api/users/{username}' },
      detect: { exists: [{ json: 'data.id' }], missing: [{ json: 'data', equals: null }] },
    },
    behave: {
      kind: 'respond',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"data":null}',
    },
    expect: { status: 'miss' },
  },
  {
    name: 'Gzip Hit',
    spec: { detect: { exists: [{ text: 'alice-profile' }], missing: [{ status: [404] }] } },
    behave: { kind: 'respond', status: 200, body: PAGE('alice-profile'), encoding: 'gzip' },
    expect: { status: 'hit' },
  },
  {
    name: 'Gzip Bytes Hit',
    spec: { detect: { exists: [{ text: 'alice-bytes' }], missing: [{ status: [404] }] } },
    behave: { kind: 'respond', status: 200, body: BYTES_PAGE, encoding: 'gzip' },
    expect: { status: 'hit' },
  },
  {
    name: 'Gzip Bytes Again Hit',
    spec: { detect: { exists: [{ text: 'alice-bytes' }], missing: [{ status: [404] }] } },
    behave: { kind: 'respond', status: 200, body: BYTES_PAGE, encoding: 'gzip' },
    expect: { status: 'hit' },
  },
  {
    name: 'Brotli Miss',
    spec: { detect: { exists: [{ status: [200] }], missing: [{ text: 'no such user' }] } },
    behave: { kind: 'respond', status: 200, body: PAGE('no such user'), encoding: 'br' },
    expect: { status: 'miss' },
  },
  {
    name: 'Cloudflare',
    behave: { kind: 'waf', vendor: 'cloudflare' },
    expect: { status: 'unknown', reason: 'waf' },
  },
  { name: 'Akamai', behave: { kind: 'waf', vendor: 'akamai' }, expect: { status: 'unknown', reason: 'waf' } },
  {
    name: 'DDoS Guard',
    behave: { kind: 'waf', vendor: 'ddos-guard' },
    expect: { status: 'unknown', reason: 'waf' },
  },
  {
    name: 'PerimeterX',
    behave: { kind: 'waf', vendor: 'perimeterx' },
    expect: { status: 'unknown', reason: 'captcha' },
  },
  {
    name: 'AWS WAF',
    behave: { kind: 'waf', vendor: 'aws-waf' },
    expect: { status: 'unknown', reason: 'captcha' },
  },
  {
    name: 'Imperva 200',
    spec: { detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] } },
    behave: { kind: 'waf', vendor: 'imperva' },
    expect: { status: 'unknown', reason: 'waf' },
  },
  {
    name: 'Always 429',
    behave: { kind: 'rate-limit', times: 100, retryAfter: '0', after: { kind: 'respond', status: 200 } },
    expect: {
      status: 'unknown',
      reason: 'rate_limited',
      evidence: expect.objectContaining({ attempts: 3, httpStatus: 429 }),
    },
  },
  {
    name: 'Retry Then Hit',
    behave: {
      kind: 'rate-limit',
      times: 1,
      retryAfter: '0',
      after: { kind: 'respond', status: 200, body: 'ok' },
    },
    expect: { status: 'hit', evidence: expect.objectContaining({ attempts: 2 }) },
  },
  { name: 'Hang', behave: { kind: 'hang' }, expect: { status: 'error', reason: 'timeout' } },
  { name: 'Reset', behave: { kind: 'reset' }, expect: { status: 'error', reason: 'connection' } },
  {
    name: 'Drip Miss',
    spec: { detect: { exists: [{ status: [200] }], missing: [{ text: 'gone away' }] } },
    behave: { kind: 'drip', status: 200, body: PAGE('gone away'), chunkBytes: 512, intervalMs: 2 },
    expect: { status: 'miss' },
  },
  {
    name: 'Huge Early Marker',
    spec: { detect: { exists: [{ status: [200] }], missing: [{ text: 'ACCOUNT-MISSING' }] } },
    behave: {
      kind: 'huge',
      status: 200,
      bytes: 8 * 1024 * 1024,
      marker: 'ACCOUNT-MISSING',
      markerAt: 'start',
    },
    expect: { status: 'miss' },
  },
  {
    name: 'Huge Past Cap',
    spec: {
      detect: { exists: [{ status: [200] }, { text: 'PROFILE' }], missing: [{ text: 'ACCOUNT-MISSING' }] },
    },
    behave: { kind: 'huge', status: 200, bytes: 4 * 1024 * 1024, marker: 'PROFILE', markerAt: 'end' },
    expect: { status: 'unknown', reason: 'unexpected_response' },
  },
  {
    name: 'Huge Hit',
    behave: {
      kind: 'huge',
      status: 200,
      bytes: 2 * 1024 * 1024,
      marker: '<html><head><meta property="og:title" content="Alice Liddell"></head><body>',
      markerAt: 'start',
    },
    expect: { status: 'hit', profile: { fullName: 'Alice Liddell' } },
  },
  {
    name: 'Server Error',
    behave: { kind: 'respond', status: 500, body: 'oops' },
    expect: { status: 'unknown', reason: 'unexpected_response' },
  },
  {
    name: 'Hit Only Hit',
    spec: { detect: HIT_ONLY },
    behave: { kind: 'respond', status: 200, body: PAGE('<li class="mark">alice</li>') },
    expect: { status: 'hit' },
  },
  {
    name: 'Hit Only Login Wall',
    spec: { detect: HIT_ONLY },
    behave: { kind: 'respond', status: 200, body: PAGE('<form>Sign in</form>') },
    expect: { status: 'unknown', reason: 'no_miss_rule' },
  },
];

const hostOf = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.test`;

describe('engine against the simulated web', () => {
  const sim = new SimWeb({
    brokenTls: { 'bad-tls.test': 'self-signed', 'wrong-name.test': 'wrong-name', 'expired.test': 'expired' },
  });
  let engine: Engine;
  const specs = [
    ...cases.map((c) => entry(c.name, c.spec)),
    entry('Bad TLS'),
    entry('Wrong Name'),
    entry('Expired'),
    entry('No Dns', { profile: 'https://no-dns.invalid/u/{username}', home: 'https://no-dns.invalid/' }),
    entry('Hit Only Flaky', { detect: HIT_ONLY }),
    entry('Strict Rule', {
      username: { pattern: '^[a-z]{3,8}$' },
      known: { claimed: ['alice'], unclaimed: ['zzz'] },
    }),
  ];
  const catalogue = catalogueOf(specs);

  beforeAll(async () => {
    for (const c of cases) {
      sim.addRoute({
        host: hostOf(c.name),
        handle: (req) => (req.path.includes('alice') ? c.behave : { kind: 'respond', status: 404 }),
      });
    }
    let flakyAnswers = 0;
    sim.addRoute({
      host: 'hit-only-flaky.test',
      handle: (req) =>
        !req.path.includes('alice')
          ? { kind: 'respond', status: 200, body: PAGE('<p>no marks</p>') }
          : flakyAnswers++ === 0
            ? { kind: 'respond', status: 503, body: 'busy' }
            : { kind: 'respond', status: 200, body: PAGE('<li class="mark">alice</li>') },
    });
    sim.addRoute({ host: /.*/, handle: () => ({ kind: 'respond', status: 200, body: 'generic' }) });
    await sim.start();
    // Room to read a megabyte of body on a loaded machine; the hanging platform costs it whole.
    engine = engineFor(sim, catalogue, { timeoutMs: 3000, bodyCapBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await engine.close();
    await sim.stop();
  });

  const platform = (name: string) => catalogue.platforms.find((p) => p.name === name)!;

  it.each(cases)('$name', async (c) => {
    const outcome = await engine.check(platform(c.name), 'alice');
    expect(outcome, JSON.stringify(outcome)).toMatchObject(c.expect);
    expect(outcome.url).toBe(`https://${hostOf(c.name)}/u/alice`);
    expect(outcome.evidence.rule).toBeTruthy();
  });

  it("retries a hit-only platform's 503, which no rule reads, as any other platform's", async () => {
    const outcome = await engine.check(platform('Hit Only Flaky'), 'alice');
    expect(outcome).toMatchObject({ status: 'hit', evidence: expect.objectContaining({ attempts: 2 }) });
  });

  it('records evidence: status, final URL and the deciding rule', async () => {
    const outcome = await engine.check(platform('Soft404 Miss'), 'alice');
    expect(outcome.evidence).toMatchObject({
      httpStatus: 200,
      finalUrl: 'https://soft404-miss.test/u/alice',
      rule: 'missing: text "User not found"',
      attempts: 1,
    });
  });

  it('stops reading a huge body once the decision is made', async () => {
    const outcome = await engine.check(platform('Huge Early Marker'), 'alice');
    expect(outcome.evidence.bytesRead).toBeLessThan(512 * 1024);
  });

  it('reads a hit on for its profile as far as profile extraction reads, not to the body cap', async () => {
    const outcome = await engine.check(platform('Huge Hit'), 'alice');
    expect(outcome.profile?.fullName).toBe('Alice Liddell');
    expect(outcome.evidence.bytesRead).toBeGreaterThanOrEqual(PROFILE_READ_CHARS);
    // At most one more batch of chunks than the profile needs (http.ts asks at least every 64 KiB).
    expect(outcome.evidence.bytesRead).toBeLessThanOrEqual(PROFILE_READ_CHARS + 64 * 1024);
  });

  it('reads no more than the body cap', async () => {
    const outcome = await engine.check(platform('Huge Past Cap'), 'alice');
    expect(outcome.evidence.bytesRead).toBe(1024 * 1024);
  });

  it('refuses broken TLS: self-signed, wrong name, expired', async () => {
    expect(await engine.check(platform('Bad TLS'), 'alice')).toMatchObject({
      status: 'error',
      reason: 'tls',
    });
    expect(await engine.check(platform('Wrong Name'), 'alice')).toMatchObject({
      status: 'error',
      reason: 'tls',
    });
    expect(await engine.check(platform('Expired'), 'alice')).toMatchObject({
      status: 'error',
      reason: 'tls',
    });
  });

  it('accepts a broken certificate only with insecure TLS', async () => {
    // This site answers 200 for every name: its control check would rightly call that drift.
    const insecure = engineFor(sim, catalogue, { insecureTls: true, controlWindowMs: 0 });
    try {
      expect(await insecure.check(platform('Bad TLS'), 'alice')).toMatchObject({ status: 'hit' });
    } finally {
      await insecure.close();
    }
  });

  it('reports a DNS failure when connect-to does not apply', async () => {
    const direct = engineFor(sim, catalogue, { connectTo: [] });
    try {
      expect(await direct.check(platform('No Dns'), 'alice')).toMatchObject({
        status: 'error',
        reason: 'dns',
      });
    } finally {
      await direct.close();
    }
  });

  it('gives invalid, without a request, for a name that breaks the platform rule', async () => {
    const before = sim.requestCount;
    const outcome = await engine.check(platform('Strict Rule'), 'Al1ce');
    expect(outcome).toMatchObject({ status: 'invalid', reason: 'username_rule', responseTime: 0 });
    expect(sim.requestCount).toBe(before);
  });

  it('refuses private destinations when asked to', async () => {
    const guarded = engineFor(sim, catalogue, { refusePrivate: true });
    try {
      expect(await guarded.check(platform('Status Hit'), 'alice')).toMatchObject({
        status: 'error',
        reason: 'blocked_destination',
      });
    } finally {
      await guarded.close();
    }
  });

  it('searches every platform concurrently: a hung platform costs no more than the timeout', async () => {
    // The hung platform goes first: were checks run one after another, its
    // outcome would come first and hold up every other one.
    const hang = platform('Hang');
    const order = [hang, ...catalogue.platforms.filter((p) => p !== hang)];
    // A deadline the others' answers cannot reach even when a loaded machine stalls them.
    const patient = engineFor(sim, catalogue, { timeoutMs: 5000, bodyCapBytes: 1024 * 1024 });
    const outcomes: Outcome[] = [];
    try {
      for await (const o of patient.search('alice', order)) outcomes.push(o);
    } finally {
      await patient.close();
    }
    expect(outcomes).toHaveLength(catalogue.platforms.length);
    expect(new Set(outcomes.map((o) => o.platformId)).size).toBe(catalogue.platforms.length);
    // Everything else was decided while it hung; it ends on its timeout, as an error.
    expect(outcomes.at(-1)).toMatchObject({ platformId: hang.id, status: 'error', reason: 'timeout' });
    expect(outcomes.at(-1)!.responseTime).toBeGreaterThanOrEqual(5000 - 50);
  });

  it('stops sending to an origin whose checks keep timing out, and says so in the evidence', async () => {
    const quick = engineFor(sim, catalogue, {
      timeoutMs: 300,
      breakerTimeouts: 2,
      breakerCooldownMs: 60_000,
    });
    try {
      const timed: { outcome: Outcome; ms: number; sent: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const before = sim.requestCount;
        const started = performance.now();
        const outcome = await quick.check(platform('Hang'), 'alice');
        timed.push({ outcome, ms: performance.now() - started, sent: sim.requestCount - before });
      }
      for (const { outcome, ms } of timed.slice(0, 2)) {
        expect(outcome).toMatchObject({ status: 'error', reason: 'timeout' });
        expect(outcome.evidence.attempts).toBeGreaterThanOrEqual(1);
        expect(ms).toBeGreaterThanOrEqual(290);
      }
      const refused = timed[2]!;
      expect(refused.outcome).toMatchObject({ status: 'error', reason: 'timeout', responseTime: 0 });
      expect(refused.outcome.evidence).toMatchObject({ attempts: 0 });
      expect(refused.outcome.evidence.rule).toMatch(/not sent: the last 2 checks to this origin timed out/);
      // Refused without waiting on the network: nothing reached the host.
      expect(refused.sent).toBe(0);
      // Other origins are still checked: sent, not refused. Its answer may take longer than this
      // engine's short deadline on a loaded machine, so it reads a hit or a timeout of its own.
      const other = await quick.check(platform('Status Hit'), 'alice');
      expect(other.evidence.attempts).toBeGreaterThanOrEqual(1);
      expect(other.evidence.rule ?? '').not.toMatch(/not sent/);
      expect(other.status === 'hit' || other.reason === 'timeout', JSON.stringify(other)).toBe(true);
    } finally {
      await quick.close();
    }
  });

  it('cancels a search when the signal aborts', async () => {
    const controller = new AbortController();
    const seen: Outcome[] = [];
    const run = (async () => {
      for await (const o of engine.search(
        'alice',
        [platform('Hang'), platform('Status Hit')],
        controller.signal,
      )) {
        seen.push(o);
        controller.abort(new Error('stop'));
      }
    })();
    await expect(run).rejects.toThrow('stop');
    expect(seen.length).toBe(1);
  });
});
