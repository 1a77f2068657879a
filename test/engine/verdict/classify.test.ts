import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../../src/catalogue/builtin.js';
import { loadCatalogue } from '../../../src/catalogue/loader.js';
import { readsName } from '../../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../../src/catalogue/schema.js';
import { platformUsername, ruleViolation } from '../../../src/catalogue/username-rule.js';
import { classify, finalVerdict } from '../../../src/engine/verdict/classify.js';
import type { ResponseView } from '../../../src/engine/verdict/response-view.js';
import { SHIELD_BODY_WINDOW } from '../../../src/engine/verdict/shields.js';
import { type WafVendor, wafResponse } from '../../../src/sim/behaviour.js';
import { catalogueOf, entry } from '../../support/catalogue.js';

function platform(detect: PlatformSpec['detect'], check?: PlatformSpec['check']) {
  return catalogueOf([entry('P', { detect, ...(check ? { check } : {}) })]);
}

function view(over: Partial<ResponseView> = {}): ResponseView {
  return {
    status: 200,
    headers: {},
    url: 'https://p.test/u/alice',
    redirected: false,
    body: '',
    complete: true,
    ...over,
  };
}

const STATUS = { exists: [{ status: [200] }], missing: [{ status: [404, 410] }] };
const SOFT = { exists: [{ status: [200] }, { text: 'data-profile' }], missing: [{ text: 'Page not found' }] };

describe('classify: every rule kind', () => {
  it.each<[string, PlatformSpec['detect'], Partial<ResponseView>, string, string?]>([
    ['status exists', STATUS, { status: 200 }, 'hit'],
    ['status missing', STATUS, { status: 404 }, 'miss'],
    ['status missing (second code)', STATUS, { status: 410 }, 'miss'],
    ['status neither', STATUS, { status: 403 }, 'unknown', 'unexpected_response'],
    ['status 500', STATUS, { status: 500 }, 'unknown', 'unexpected_response'],
    ['soft-404 profile', SOFT, { body: '<div data-profile>' }, 'hit'],
    ['soft-404 missing', SOFT, { body: '<h1>Page not found</h1>' }, 'miss'],
    ['soft-404: missing wins over exists', SOFT, { body: 'data-profile Page not found' }, 'miss'],
    ['soft-404: login wall', SOFT, { body: '<form>login</form>' }, 'unknown', 'unexpected_response'],
    ['text is case-sensitive', SOFT, { body: 'page NOT found' }, 'unknown', 'unexpected_response'],
    [
      'regex',
      { exists: [{ regex: '<title>[^<]*Profile' }], missing: [{ regex: 'not\\s+found', flags: 'i' }] },
      { body: '<title>Bob Profile</title>' },
      'hit',
    ],
    [
      'regex flags',
      { exists: [{ regex: '<title>[^<]*Profile' }], missing: [{ regex: 'not\\s+found', flags: 'i' }] },
      { body: 'NOT   FOUND' },
      'miss',
    ],
    [
      'redirect manual (Location)',
      { exists: [{ status: [200] }], missing: [{ redirect: '/login' }] },
      { status: 302, headers: { location: '/login?next=/u/alice' } },
      'miss',
    ],
    [
      'redirect any',
      { exists: [{ status: [200] }], missing: [{ redirect: '' }] },
      { status: 301, headers: { location: 'https://p.test/' } },
      'miss',
    ],
    [
      'redirect elsewhere is not the missing one',
      { exists: [{ status: [200] }], missing: [{ redirect: '/login' }] },
      { status: 302, headers: { location: '/home' } },
      'unknown',
      'unexpected_response',
    ],
    [
      'redirect followed (final URL)',
      { exists: [{ status: [200] }], missing: [{ redirect: '/notfound' }] },
      { redirected: true, url: 'https://p.test/notfound' },
      'miss',
    ],
    [
      'not redirected',
      { exists: [{ status: [200] }], missing: [{ redirect: '' }] },
      { redirected: false },
      'hit',
    ],
    [
      'json present',
      { exists: [{ json: 'user.id' }], missing: [{ json: 'error' }] },
      { body: '{"user":{"id":7}}' },
      'hit',
    ],
    [
      'json missing key',
      { exists: [{ json: 'user.id' }], missing: [{ json: 'error' }] },
      { body: '{"error":"no"}' },
      'miss',
    ],
    [
      'json null is absent',
      { exists: [{ json: 'user.id' }], missing: [{ json: 'error' }] },
      { body: '{"user":{"id":null}}' },
      'unknown',
      'unexpected_response',
    ],
    [
      'json equals',
      { exists: [{ json: 'total', equals: 1 }], missing: [{ json: 'total', equals: 0 }] },
      { body: '{"total":0}' },
      'miss',
    ],
    [
      'json equals null',
      { exists: [{ json: 'data.id' }], missing: [{ json: 'data', equals: null }] },
      { body: '{"data":null}' },
      'miss',
    ],
    [
      'json array index',
      { exists: [{ json: 'items.0.name' }], missing: [{ json: 'items.0', equals: null }] },
      { body: '{"items":[{"name":"a"}]}' },
      'hit',
    ],
    [
      'json not JSON',
      { exists: [{ json: 'user.id' }], missing: [{ json: 'error' }] },
      { body: '<html>' },
      'unknown',
      'unexpected_response',
    ],
    [
      'header present',
      { exists: [{ header: 'x-user-id' }], missing: [{ status: [404] }] },
      { headers: { 'x-user-id': '1' } },
      'hit',
    ],
    [
      'header value',
      { exists: [{ status: [200] }], missing: [{ header: 'X-Result', value: 'none' }] },
      { headers: { 'x-result': 'none' } },
      'miss',
    ],
    ['rate limited', STATUS, { status: 429 }, 'unknown', 'rate_limited'],
  ])('%s', (_, detect, over, status, reason) => {
    const cat = platform(detect);
    const verdict = classify(cat.platforms[0]!, view(over), cat.shields);
    expect(verdict).not.toBe('pending');
    if (verdict !== 'pending') {
      expect(verdict.status).toBe(status);
      expect(verdict.reason).toBe(reason);
      expect(verdict.rule.length).toBeGreaterThan(0);
    }
  });

  it('names the deciding rule, with the snippet of its marker in the final verdict', () => {
    const cat = platform(SOFT);
    const p = cat.platforms[0]!;
    expect(finalVerdict(p, view({ body: 'Page not found' }), cat.shields)).toEqual({
      status: 'miss',
      rule: 'missing: text "Page not found"',
      snippet: '[Page not found]',
    });
    expect(finalVerdict(p, view({ body: 'data-profile' }), cat.shields)).toEqual({
      status: 'hit',
      rule: 'exists: status 200 & text "data-profile"',
      snippet: '[data-profile]',
    });
    const long = `<html>${'a'.repeat(100)} <div class="x" data-profile="1">${'b'.repeat(100)}</html>`;
    expect(finalVerdict(p, view({ body: long }), cat.shields)).toMatchObject({
      status: 'hit',
      snippet: `…${'a'.repeat(44)} <div class="x" [data-profile]="1">${'b'.repeat(55)}…`,
    });
  });

  it('cuts no snippet while classifying: only the final verdict does, once', () => {
    const cat = platform(SOFT);
    const p = cat.platforms[0]!;
    const decision = classify(p, view({ body: 'Page not found', complete: false }), []);
    expect(decision).toMatchObject({ status: 'miss', decidedBy: p.detect.missing });
    expect(decision).not.toHaveProperty('snippet');
    // The decision that stopped the reading is taken as it is, not classified again.
    const partial = view({ body: 'xx Page not found yy', complete: false });
    expect(finalVerdict(p, partial, cat.shields, decision === 'pending' ? undefined : decision)).toEqual({
      status: 'miss',
      rule: 'missing: text "Page not found"',
      snippet: 'xx [Page not found] yy',
    });
  });

  it('reads an answer that ended while still pending as complete, else as undecided', () => {
    const cat = platform(SOFT);
    const p = cat.platforms[0]!;
    expect(finalVerdict(p, view({ body: 'data-profile', complete: false }), [])).toMatchObject({
      status: 'hit',
      snippet: '[data-profile]',
    });
    const json = platform({ exists: [{ json: 'user.id' }], missing: [{ status: [404] }] });
    expect(finalVerdict(json.platforms[0]!, view({ body: '{"user":{"id":1}}' }), [])).toEqual({
      status: 'hit',
      rule: 'exists: json user.id',
    });
  });
});

describe('classify: partial bodies', () => {
  const cat = platform(SOFT);
  const p = cat.platforms[0]!;
  it('waits while a missing marker could still arrive', () => {
    expect(classify(p, view({ body: 'data-profile', complete: false }), cat.shields)).toBe('pending');
  });
  it('decides a miss as soon as the missing marker is seen and no shield can still match', () => {
    expect(classify(p, view({ body: 'Page not found', complete: false }), [])).toMatchObject({
      status: 'miss',
    });
    // Shield markers are looked for in the first 32 KiB only.
    expect(classify(p, view({ body: 'Page not found', complete: false }), cat.shields)).toBe('pending');
    const long = `Page not found${' '.repeat(SHIELD_BODY_WINDOW)}`;
    expect(classify(p, view({ body: long, complete: false }), cat.shields)).toMatchObject({ status: 'miss' });
  });
  it('decides on the status alone when no body rule is involved', () => {
    const st = platform(STATUS);
    expect(classify(st.platforms[0]!, view({ status: 404, complete: false }), [])).toMatchObject({
      status: 'miss',
    });
  });
});

/** A soft-404 site whose profile names its account: a link to the profile, or the name as an element's text. */
const NAMED = {
  exists: [{ status: [200] }, { text: '/u/{username}"' }],
  missing: [{ text: 'No such user' }],
};
const BARE = { exists: [{ status: [200] }, { text: '>{username}<' }], missing: [{ text: 'No such user' }] };

describe('classify: the page names the account', () => {
  const read = (detect: PlatformSpec['detect'], over: Partial<ResponseView>, name?: string) => {
    const cat = platform(detect);
    const verdict = classify(cat.platforms[0]!, view(over), cat.shields, name);
    return verdict === 'pending' ? verdict : `${verdict.status}${verdict.reason ? `/${verdict.reason}` : ''}`;
  };

  // Each case: the page of the account asked about is a hit, and the other page is not.
  it.each<[string, PlatformSpec['detect'], string, string, Partial<ResponseView>, string]>([
    [
      "another account's link",
      NAMED,
      'alice',
      '<a href="/u/alice">alice</a>',
      { body: '<a href="/u/bob">bob</a>, a fan of alice' },
      'unknown/unexpected_response',
    ],
    [
      'a longer name holding the name',
      NAMED,
      'alice',
      '<a href="/u/alice">',
      { body: '<a href="/u/alice2">' },
      'unknown/unexpected_response',
    ],
    [
      'the error text alone',
      NAMED,
      'alice',
      '<a href="/u/alice">',
      { body: '<h1>No such user</h1>' },
      'miss',
    ],
    [
      // Missing is read first: an error page that echoes the name is still the error page.
      'an error page echoing the name beside its error text',
      NAMED,
      'alice',
      '<a href="/u/alice">',
      { body: '<h1>No such user</h1><a href="/u/alice">try again</a>' },
      'miss',
    ],
    [
      'a changed error page that does not name the account',
      NAMED,
      'alice',
      '<a href="/u/alice">',
      { body: '<h1>We could not find that page</h1>' },
      'unknown/unexpected_response',
    ],
    [
      'the name in another case',
      NAMED,
      'alice',
      '<a href="/u/alice">',
      { body: '<a href="/u/Alice">Alice</a>' },
      'unknown/unexpected_response',
    ],
    [
      'the bare name of another account',
      BARE,
      'alice',
      '<h1>alice</h1>',
      { body: '<h1>bob</h1>' },
      'unknown/unexpected_response',
    ],
    [
      'the bare name on a 404',
      BARE,
      'alice',
      '<h1>alice</h1>',
      { status: 404, body: '<h1>alice</h1>' },
      'unknown/unexpected_response',
    ],
    [
      'a page naming the account once where the marker names it twice',
      { exists: [{ text: '>{username} / {username}<' }], missing: [{ status: [404] }] },
      'alice',
      '<h1>alice / alice</h1>',
      { body: '<h1>alice / bob</h1>' },
      'unknown/unexpected_response',
    ],
    [
      'a missing text that names the account',
      {
        exists: [{ status: [200] }, { text: '/u/{username}"' }],
        missing: [{ text: 'No user "{username}"' }],
      },
      'alice',
      '<a href="/u/alice">',
      { body: 'No user "alice", but see <a href="/u/alice">' },
      'miss',
    ],
  ])("the account's page is a hit; %s is not", (_, detect, name, profile, other, expected) => {
    expect(read(detect, { body: profile }, name)).toBe('hit');
    expect(read(detect, other, name)).toBe(expected);
  });

  it('reads no name where the check gave none: the marker does not hold', () => {
    const cat = platform(NAMED);
    expect(classify(cat.platforms[0]!, view({ body: '<a href="/u/{username}">' }), [])).toMatchObject({
      status: 'unknown',
      reason: 'unexpected_response',
    });
  });

  it('names the rule as written, with the snippet of the name found', () => {
    const cat = platform(NAMED);
    expect(
      finalVerdict(cat.platforms[0]!, view({ body: '<a href="/u/alice">' }), [], undefined, 'alice'),
    ).toEqual({
      status: 'hit',
      rule: 'exists: status 200 & text "/u/{username}\\""',
      snippet: '<a href="[/u/alice"]>',
    });
  });

  it('waits on a partial body while the name could still arrive, and decides once it has', () => {
    const p = platform({ exists: [{ text: '/u/{username}"' }], missing: [{ status: [404] }] }).platforms[0]!;
    expect(classify(p, view({ body: '<a href="/u/bob">', complete: false }), [], 'alice')).toBe('pending');
    expect(classify(p, view({ body: '<a href="/u/alice">', complete: false }), [], 'alice')).toMatchObject({
      status: 'hit',
    });
  });
});

describe('classify: the built-in entries that read the page naming the account', () => {
  // A changed error page, a login wall or a home page, without the missing text: it holds
  // common words, which are names too; a random control name is never among them.
  const page =
    '<html><head><title>Sign in</title></head><body><a href="/">home</a> <a href="/login">login</a> <a href="/search">search</a></body></html>';
  const { catalogue } = loadBuiltinCatalogue();
  const named = catalogue.platforms.filter((p) => p.enabled && readsName(p));

  it.each(named.map((p) => [p.name, p] as const))(
    '%s reads no hit for a name that is a word of any page',
    (_, p) => {
      for (const word of ['home', 'login', 'search']) {
        if (ruleViolation(p.username, word) !== undefined) continue;
        const verdict = classify(p, view({ body: page }), catalogue.shields, platformUsername(p, word));
        expect(verdict === 'pending' ? verdict : verdict.status, word).not.toBe('hit');
      }
    },
  );
});

/** "status 200 and the body lacks the profile marker" on the missing side (WhatsMyName's Blogmarks). */
const LACKS = {
  exists: [{ status: [200] }, { text: 'class="mark"' }],
  missing: [{ all: [{ status: [200] }, { not: { text: 'class="mark"' } }] }],
};

describe('classify: compound signals', () => {
  it.each<[string, PlatformSpec['detect'], Partial<ResponseView>, string, string?]>([
    ['lacks: the marker is there', LACKS, { body: '<li class="mark">x</li>' }, 'hit'],
    ['lacks: no marker on a 200', LACKS, { body: '<p>no bookmarks</p>' }, 'miss'],
    ['lacks: no marker on a 404', LACKS, { status: 404, body: '' }, 'unknown', 'unexpected_response'],
    ['lacks: no marker on a 500', LACKS, { status: 500, body: 'oops' }, 'unknown', 'unexpected_response'],
    [
      'all on the exists side: every part must hold',
      {
        exists: [
          { all: [{ status: [200] }, { json: 'user.id' }, { not: { json: 'user.deleted', equals: true } }] },
        ],
        missing: [{ status: [404] }],
      },
      { body: '{"user":{"id":1,"deleted":true}}' },
      'unknown',
      'unexpected_response',
    ],
    [
      'all on the exists side: a live account',
      {
        exists: [
          { all: [{ status: [200] }, { json: 'user.id' }, { not: { json: 'user.deleted', equals: true } }] },
        ],
        missing: [{ status: [404] }],
      },
      { body: '{"user":{"id":1,"deleted":false}}' },
      'hit',
    ],
    [
      'a group of a status and a redirect',
      {
        exists: [{ status: [200] }, { text: 'profile' }],
        missing: [{ all: [{ status: [302] }, { redirect: '/search' }] }],
      },
      { status: 302, headers: { location: '/search?q=alice' } },
      'miss',
    ],
    [
      'a group that does not hold as a whole decides nothing',
      {
        exists: [{ status: [200] }, { text: 'profile' }],
        missing: [{ all: [{ status: [302] }, { redirect: '/search' }] }],
      },
      { status: 302, headers: { location: '/login' } },
      'unknown',
      'unexpected_response',
    ],
  ])('%s', (_, detect, over, status, reason) => {
    const cat = platform(detect);
    const verdict = classify(cat.platforms[0]!, view(over), cat.shields);
    expect(verdict).not.toBe('pending');
    if (verdict !== 'pending') {
      expect(verdict.status).toBe(status);
      expect(verdict.reason).toBe(reason);
    }
  });

  it('names the group as the deciding rule', () => {
    const cat = platform(LACKS);
    expect(finalVerdict(cat.platforms[0]!, view({ body: 'empty' }), [])).toEqual({
      status: 'miss',
      rule: 'missing: (status 200 & not text "class=\\"mark\\"")',
    });
  });

  it('waits on a partial body until the lacking part is certain, and not longer', () => {
    const p = platform(LACKS).platforms[0]!;
    expect(classify(p, view({ body: '<p>no bookmarks', complete: false }), [])).toBe('pending');
    expect(classify(p, view({ body: '<li class="mark">', complete: false }), [])).toMatchObject({
      status: 'hit',
    });
    // A failing status part decides at once, whatever the body still holds.
    expect(classify(p, view({ status: 404, body: '', complete: false }), [])).toMatchObject({
      status: 'unknown',
    });
  });
});

/** Blogmarks as a hit-only entry: the marker tells an account, and nothing tells a missing one. */
const HIT_ONLY = { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] };

describe('classify: a hit-only entry', () => {
  it.each<[string, Partial<ResponseView>, string, string?]>([
    ['the marker on a 200 is a hit', { body: '<li class="mark">x</li>' }, 'hit'],
    [
      'a 200 without the marker is unknown, never a miss',
      { body: '<p>no bookmarks</p>' },
      'unknown',
      'no_miss_rule',
    ],
    ['a login wall is unknown', { body: '<form>Sign in</form>' }, 'unknown', 'no_miss_rule'],
    ['a 404 is unknown', { status: 404, body: 'Not Found' }, 'unknown', 'no_miss_rule'],
    ['a 429 is still rate_limited', { status: 429 }, 'unknown', 'rate_limited'],
  ])('%s', (_, over, status, reason) => {
    const cat = platform(HIT_ONLY);
    const verdict = classify(cat.platforms[0]!, view(over), cat.shields);
    expect(verdict).not.toBe('pending');
    if (verdict !== 'pending') {
      expect(verdict.status).toBe(status);
      expect(verdict.reason).toBe(reason);
    }
  });

  it('says why in its rule, and waits on a partial body only while the marker could arrive', () => {
    const p = platform(HIT_ONLY).platforms[0]!;
    expect(finalVerdict(p, view({ status: 403, body: 'denied' }), [])).toEqual({
      status: 'unknown',
      reason: 'no_miss_rule',
      rule: 'hit-only: not a hit, and no rule tells a missing account (status 403)',
    });
    expect(classify(p, view({ body: '<p>loading', complete: false }), [])).toBe('pending');
    expect(classify(p, view({ status: 500, body: '', complete: false }), [])).toMatchObject({
      status: 'unknown',
      reason: 'no_miss_rule',
    });
  });
});

describe('classify: bot shields never give hit or miss', () => {
  const vendors: [WafVendor, string][] = [
    ['cloudflare', 'waf'],
    ['akamai', 'waf'],
    ['ddos-guard', 'waf'],
    ['perimeterx', 'captcha'],
    ['aws-waf', 'captcha'],
    ['imperva', 'waf'],
  ];
  // Rules that would call a challenge page a hit (200 or 403 + "html") or a miss (403).
  const greedy = { exists: [{ status: [200, 202, 403] }], missing: [{ status: [403, 404] }] };
  it.each(vendors)('%s', (vendor, reason) => {
    const page = wafResponse(vendor);
    const cat = platform(greedy);
    const lower = Object.fromEntries(
      Object.entries(page.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const verdict = classify(
      cat.platforms[0]!,
      view({ status: page.status, headers: lower, body: page.body ?? '' }),
      cat.shields,
    );
    expect(verdict).toMatchObject({ status: 'unknown', reason });
  });

  it.each([
    ['DataDome', 403, { 'x-datadome': 'protected' }, '<html>blocked</html>', 'captcha'],
    ['Sucuri', 403, {}, '<title>Sucuri WebSite Firewall - Access Denied</title>', 'waf'],
    ['Cloudflare mitigated header', 403, { 'cf-mitigated': 'challenge' }, '', 'waf'],
    [
      'Cloudflare block page',
      403,
      { server: 'cloudflare' },
      '<title>Attention Required! | Cloudflare</title>',
      'waf',
    ],
    ['Turnstile', 403, {}, '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js">', 'captcha'],
  ])('%s', (_, status, headers, body, reason) => {
    const cat = platform(greedy);
    expect(classify(cat.platforms[0]!, view({ status, headers, body }), cat.shields)).toMatchObject({
      status: 'unknown',
      reason,
    });
  });

  it('an ordinary Cloudflare-served 200 page is not a challenge', () => {
    const cat = platform(STATUS);
    const verdict = classify(
      cat.platforms[0]!,
      view({
        status: 200,
        headers: { server: 'cloudflare' },
        body: '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script> profile',
      }),
      cat.shields,
    );
    expect(verdict).toMatchObject({ status: 'hit' });
  });

  it('a catalogue may add its own fingerprints', () => {
    const { catalogue } = loadCatalogue({
      platforms: [entry('P', { detect: STATUS })],
      shields: [{ name: 'acme-shield', reason: 'captcha', body: ['ACME says prove you are human'] }],
    });
    expect(
      classify(catalogue.platforms[0]!, view({ body: 'ACME says prove you are human' }), catalogue.shields),
    ).toMatchObject({
      status: 'unknown',
      reason: 'captcha',
      rule: 'shield: acme-shield',
    });
  });
});
