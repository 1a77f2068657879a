/**
 * Answers kept by the emulation are the answers it would synthesize afresh, byte
 * for byte, for every platform of the built-in catalogue, its accounts and not,
 * padded or not, and whichever request came first.
 */
import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import { loadBuiltinCatalogue } from '../catalogue/builtin.js';
import type { Platform } from '../catalogue/platform.js';
import { classify } from '../engine/verdict/classify.js';
import { buildRequest } from '../engine/verdict/request.js';
import type { Behaviour, SimRequest, SimRoute } from './behaviour.js';
import { emulateCatalogue } from './emulate.js';

const { catalogue } = loadBuiltinCatalogue();
const platforms = catalogue.platforms.filter((p) => p.enabled);
// Names (letters and digits) that nearly every platform's username rule accepts.
const OTHERS = ['zqnobody1', 'zqnobody2'];
const accounts = (p: Platform) => [p.known.claimed[0]!];
// Platforms answer padded or not, as the benchmark's do.
const padBytes = (p: Platform) => (p.id.length % 3) * 700;

/** What the simulated web's server does: the first route for the host that answers. */
function serve(routes: readonly SimRoute[], request: SimRequest): Behaviour | undefined {
  for (const route of routes) {
    const matches =
      typeof route.host === 'string' ? route.host === request.host : route.host.test(request.host);
    const behaviour = matches ? route.handle(request) : undefined;
    if (behaviour) return behaviour;
  }
  return undefined;
}

function requestFor(url: string, method: string, body = ''): SimRequest {
  const u = new URL(url);
  return {
    method,
    host: u.hostname,
    path: `${u.pathname}${u.search}`,
    headers: {},
    body,
    tls: u.protocol === 'https:',
    remoteAddress: '127.0.0.1',
  };
}

/** The answer as the client gets it: status, headers, body bytes. */
function wire(b: Behaviour | undefined) {
  if (b?.kind !== 'respond') return b;
  const body = typeof b.body === 'string' ? Buffer.from(b.body) : Buffer.from(b.body ?? new Uint8Array());
  return { status: b.status, headers: { ...b.headers }, body: body.toString('base64'), delayMs: b.delayMs };
}

describe('emulation answers kept', () => {
  it('are byte for byte what a fresh synthesis answers, for every name at every platform', () => {
    const kept = emulateCatalogue(platforms, catalogue.shields, { accounts, padBytes });
    const fresh = () =>
      emulateCatalogue(platforms, catalogue.shields, { accounts, padBytes, answerCacheBytes: 0 });
    let compared = 0;
    // Each order: an account first then names without one, and the other way round.
    for (const order of [0, 1]) {
      const emulation =
        order === 0 ? kept : emulateCatalogue(platforms, catalogue.shields, { accounts, padBytes });
      const reference = fresh();
      for (const p of platforms) {
        const names = [p.known.claimed[0]!, ...OTHERS];
        for (const name of order === 0 ? names : [...names].reverse()) {
          const built = buildRequest(p, name, {});
          if (!built.ok) continue;
          const { url, method, body } = built.request;
          const request = requestFor(url, method, body);
          const got = serve(emulation.routes, request);
          expect(wire(got), `${p.name} ${name}`).toEqual(wire(serve(reference.routes, request)));
          compared++;
          // A redirect followed lands on a page of the emulation's: the same one too.
          const location = got?.kind === 'respond' ? got.headers?.location : undefined;
          if (location && p.check.redirects === 'follow') {
            const landing = requestFor(new URL(location, url).href, 'GET');
            expect(wire(serve(emulation.routes, landing)), `${p.name} ${name} landing`).toEqual(
              wire(serve(reference.routes, landing)),
            );
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(platforms.length * 5);
  });

  it('serve one answer to every missing name at a platform, and its own to an account', () => {
    const { routes } = emulateCatalogue(platforms, catalogue.shields, { accounts, padBytes });
    const p = platforms.find((q) => !q.check.url.split('/')[2]!.includes('{') && q.check.method === 'GET')!;
    const answer = (name: string) => {
      const built = buildRequest(p, name, {});
      if (!built.ok) throw new Error(built.message);
      const b = serve(routes, requestFor(built.request.url, 'GET'));
      return b?.kind === 'respond' ? b : undefined;
    };
    const [one, two, account] = [answer(OTHERS[0]!), answer(OTHERS[1]!), answer(p.known.claimed[0]!)];
    expect(one?.body).toBeInstanceOf(Uint8Array);
    // Kept: the same bytes, not bytes made again.
    expect(two?.body).toBe(one?.body);
    expect(account?.body).not.toBe(one?.body);
    expect(wire(account)).not.toEqual(wire(one));
  });
});

describe('emulation of a platform whose pages name the account', () => {
  const named = catalogueOf([
    entry('Named', {
      detect: {
        exists: [{ status: [200] }, { text: '/u/{username}"' }],
        missing: [{ text: 'No such user' }],
      },
      known: { claimed: ['alice', 'bob'], unclaimed: ['nobody-here-7'] },
    }),
  ]);
  const p = named.platforms[0]!;
  const page = (routes: readonly SimRoute[], name: string): string => {
    const built = buildRequest(p, name, {});
    if (!built.ok) throw new Error(built.message);
    const b = serve(routes, requestFor(built.request.url, 'GET'));
    return b?.kind === 'respond' ? Buffer.from(b.body ?? '').toString() : '';
  };

  it('serves each account a profile naming it, read as a hit for that name only', () => {
    const { routes, problems } = emulateCatalogue(named.platforms, named.shields, { padBytes: 300 });
    expect(problems).toEqual([]);
    const [alice, bob] = [page(routes, 'alice'), page(routes, 'bob')];
    expect(alice).toContain('/u/alice"');
    expect(bob).toContain('/u/bob"');
    expect(bob).not.toContain('alice');
    const read = (body: string, name: string) => {
      const view = {
        status: 200,
        headers: {},
        url: 'https://named.test/',
        redirected: false,
        body,
        complete: true,
      };
      const verdict = classify(p, view, named.shields, name);
      return verdict === 'pending' ? verdict : verdict.status;
    };
    expect([read(alice, 'alice'), read(alice, 'bob')]).toEqual(['hit', 'unknown']);
    expect(page(routes, 'nobody-here-7')).toContain('No such user');
  });
});

describe('emulation landing pages', () => {
  it('are kept for the redirects served last, up to landingsKept', () => {
    // A platform whose redirect for a missing name lands on a page named after it: one landing a name.
    const redirectOf = (routes: readonly SimRoute[], p: Platform, name: string) => {
      const built = buildRequest(p, name, {});
      if (!built.ok) return undefined;
      const got = serve(routes, requestFor(built.request.url, built.request.method, built.request.body));
      const location = got?.kind === 'respond' ? got.headers?.location : undefined;
      return location && new URL(location, built.request.url).href;
    };
    const probe = emulateCatalogue(platforms, catalogue.shields, { accounts });
    const p = platforms.find(
      (q) => q.check.redirects === 'follow' && redirectOf(probe.routes, q, OTHERS[0]!)?.includes(OTHERS[0]!),
    )!;
    expect(p).toBeDefined();
    const { routes } = emulateCatalogue([p], catalogue.shields, { accounts, landingsKept: 1 });
    const landing = (url: string) => wire(serve(routes, requestFor(url, 'GET')));
    const first = redirectOf(routes, p, OTHERS[0]!)!;
    const page = landing(first);
    expect(page).toMatchObject({ status: expect.any(Number) });
    const second = redirectOf(routes, p, OTHERS[1]!)!;
    expect(second).not.toBe(first);
    expect(landing(second)).toEqual(page);
    // The first name's landing was let go for the second's.
    expect(landing(first)).not.toEqual(page);
  });
});
