import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  applyEngine,
  formatTemplate,
  importMaigret,
  looksLikeMaigret,
} from '../../../src/catalogue/importers/maigret.js';
import { NOT_FOUND_LIKE, SUCCESS } from '../../../src/catalogue/importers/status-codes.js';
import { loadCatalogue } from '../../../src/catalogue/loader.js';
import type { Platform } from '../../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../../src/catalogue/schema.js';
import { classify } from '../../../src/engine/verdict/classify.js';
import { referenceFile } from '../../support/reference.js';

const REFERENCE = referenceFile('maigret/data.json');

interface Site {
  checkType?: string;
  presenseStrs?: string[];
  presenceStrs?: string[];
  absenceStrs?: string[];
  errors?: Record<string, string>;
  ignore403?: boolean;
  disabled?: boolean;
  engine?: string;
  [key: string]: unknown;
}

const base: Site = {
  url: 'https://example.com/user/{username}',
  urlMain: 'https://example.com/',
  checkType: 'status_code',
  usernameClaimed: 'alice',
  usernameUnclaimed: 'noonewouldeverusethis7',
  tags: ['forum', 'us'],
};

const NON_EMPTY = { regex: '[\\s\\S]' };

function importOne(overrides: Record<string, unknown>, engines: Record<string, unknown> = {}): PlatformSpec {
  const result = importMaigret({ sites: { Example: { ...base, ...overrides } }, engines, tags: [] });
  if (result.rejected.length > 0) throw new Error(result.rejected[0]!.reason);
  return result.document.platforms[0]!;
}

function rejectionOf(
  overrides: Record<string, unknown>,
  engines: Record<string, unknown> = {},
): string | undefined {
  return importMaigret({ sites: { Example: { ...base, ...overrides } }, engines }).rejected[0]?.reason;
}

function verdict(platform: Platform, status: number, body: string): string {
  const view = { status, headers: {}, url: platform.check.url, redirected: false, body, complete: true };
  const result = classify(platform, view, []);
  return result === 'pending' ? 'pending' : result.status;
}

/** Maigret's reading of an answer (maigret/checking.py), on a site with its engine applied. */
function upstreamVerdict(site: Site, status: number, body: string): string {
  if (Object.keys(site.errors ?? {}).some((e) => body.includes(e))) return 'unknown';
  if ((status === 403 && !site.ignore403) || status >= 500) return 'unknown';
  const presence = [...(site.presenseStrs ?? []), ...(site.presenceStrs ?? [])];
  const present = body !== '' && (presence.length === 0 || presence.some((p) => body.includes(p)));
  const success = status >= 200 && status < 300;
  if (site.checkType === 'message') {
    return !(site.absenceStrs ?? []).some((a) => body.includes(a)) && present ? 'hit' : 'miss';
  }
  if (site.checkType === 'status_code') return success ? 'hit' : 'miss';
  return success && present ? 'hit' : 'miss';
}

describe('importMaigret: detection rules', () => {
  it.each([
    [
      'status_code: 2xx is a hit, a redirect or client error a miss',
      {},
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'status_code with ignore403: a 403 is a miss too',
      { ignore403: true },
      {
        exists: [{ status: [...SUCCESS] }],
        missing: [{ status: [...NOT_FOUND_LIKE, 403].sort((a, b) => a - b) }],
      },
    ],
    [
      'message: presenseStrs (ANY) as one regex, absenceStrs (ANY) as missing',
      {
        checkType: 'message',
        presenseStrs: ['og:profile', 'user (card)'],
        absenceStrs: ['Not found', 'Gone.'],
      },
      {
        exists: [{ status: [...SUCCESS] }, { regex: 'og:profile|user \\(card\\)' }],
        missing: [{ regex: 'Not found|Gone\\.' }],
      },
    ],
    [
      'message with one absence text and no presence: any non-empty page without it',
      { checkType: 'message', absenceStrs: ['Not found'] },
      { exists: [{ status: [...SUCCESS] }, NON_EMPTY], missing: [{ text: 'Not found' }] },
    ],
    [
      'message with presence only: a page without it is a miss, as in Maigret',
      { checkType: 'message', presenseStrs: ['og:profile'] },
      {
        exists: [{ status: [...SUCCESS] }, { text: 'og:profile' }],
        missing: [{ all: [{ regex: '^' }, { not: { text: 'og:profile' } }] }],
      },
    ],
    [
      'message with ignore403: a 403 page can be a hit',
      { checkType: 'message', absenceStrs: ['Not found'], ignore403: true },
      { exists: [{ status: [...SUCCESS, 403] }, NON_EMPTY], missing: [{ text: 'Not found' }] },
    ],
    [
      'response_url without presence texts: any non-empty 2xx page is a hit',
      { checkType: 'response_url' },
      { exists: [{ status: [...SUCCESS] }, NON_EMPTY], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'response_url: 2xx with a presence text is a hit, a redirect a miss',
      { checkType: 'response_url', presenseStrs: ['profile'] },
      { exists: [{ status: [...SUCCESS] }, { text: 'profile' }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'errors: the site’s error pages are neither a hit nor a miss',
      { checkType: 'message', absenceStrs: ['Not found'], errors: { 'You are banned': 'IP ban' } },
      {
        exists: [
          { status: [...SUCCESS] },
          NON_EMPTY,
          { all: [{ regex: '^' }, { not: { text: 'You are banned' } }] },
        ],
        missing: [{ all: [{ text: 'Not found' }, { not: { text: 'You are banned' } }] }],
      },
    ],
  ])('%s', (_label, overrides, detect) => {
    expect(importOne(overrides).detect).toEqual(detect);
  });

  it('classifies as Maigret does, with unknown where it cannot tell', () => {
    const site = {
      ...base,
      checkType: 'message',
      presenseStrs: ['og:profile'],
      absenceStrs: ['Not found'],
      errors: { banned: 'x' },
    };
    const platform = loadCatalogue({ platforms: [importOne(site)] }).catalogue.platforms[0]!;
    expect(verdict(platform, 200, '<meta og:profile>')).toBe('hit');
    expect(verdict(platform, 200, 'Not found')).toBe('miss');
    expect(verdict(platform, 200, 'banned og:profile')).toBe('unknown');
    expect(verdict(platform, 200, 'banned. Not found')).toBe('unknown');
    expect(verdict(platform, 200, 'some other page')).toBe('unknown');
    expect(verdict(platform, 500, 'og:profile')).toBe('unknown');
  });

  it.each([
    ['disabled upstream', { disabled: true }],
    ['checks identifiers of type gaia_id, not usernames', { type: 'gaia_id' }],
    ['needs the tor network', { protocol: 'tor' }],
    ['is a DNS lookup', { protocol: 'dns' }],
    ['needs a session token', { activation: { method: 'vimeo', marks: ['x'] } }],
    ['searches for similar names', { similarSearch: true }],
    ['uses checkType teapot', { checkType: 'teapot' }],
    ['message without absenceStrs or presenseStrs', { checkType: 'message' }],
    ['an empty marker string matches every page', { checkType: 'message', absenceStrs: [''] }],
    ['uses engine Nope, which the file does not define', { engine: 'Nope' }],
    ['url has an unknown field {user}', { url: 'https://example.com/{user}' }],
    ['regexCheck "^a\\\\b" uses \\b', { regexCheck: '^a\\b' }],
    ['no known account name', { usernameClaimed: undefined }],
  ])('rejects: %s', (reason, overrides) => {
    expect(rejectionOf(overrides)).toContain(reason);
  });
});

describe('importMaigret: engines, requests and entry data', () => {
  it('applies an engine as Maigret does: lists concatenated, maps merged, plain values from the engine', () => {
    expect(
      applyEngine(
        { checkType: 'status_code', presenseStrs: ['a'], errors: { x: '1' }, url: 'https://s/{username}' },
        { checkType: 'message', presenseStrs: ['b'], errors: { y: '2' }, absenceStrs: ['c'] },
      ),
    ).toEqual({
      checkType: 'message',
      presenseStrs: ['a', 'b'],
      errors: { x: '1', y: '2' },
      url: 'https://s/{username}',
      absenceStrs: ['c'],
    });
  });

  it('fills {urlMain} and {urlSubpath} from the site after its engine', () => {
    const engines = {
      Forum: {
        site: {
          checkType: 'message',
          absenceStrs: ['No member'],
          url: '{urlMain}{urlSubpath}/members/?u={username}',
        },
      },
    };
    const spec = importOne(
      { engine: 'Forum', url: undefined, urlMain: 'https://f.example.com', urlSubpath: '/forum' },
      engines,
    );
    expect(spec.profile).toBe('https://f.example.com/forum/members/?u={username}');
    expect(spec.detect.missing).toEqual([{ text: 'No member' }]);
  });

  it('formats templates as Python str.format does', () => {
    expect(
      formatTemplate('{urlMain}/a#{{"q":"{username}"}}', { urlMain: 'https://x', urlSubpath: '' }, 'url'),
    ).toEqual({
      ok: true,
      value: 'https://x/a#{"q":"{username}"}',
    });
    expect(formatTemplate('{{username}}', { urlMain: '', urlSubpath: '' }, 'url').ok).toBe(false);
  });

  it('collapses repeated slashes in the profile URL, as Maigret does', () => {
    expect(importOne({ url: '{urlMain}/user/{username}', urlMain: 'https://example.com/' }).profile).toBe(
      'https://example.com/user/{username}',
    );
  });

  it.each([
    ['status_code: GET, following redirects', {}, undefined, 'follow'],
    ['status_code with requestHeadOnly: HEAD', { requestHeadOnly: true }, 'HEAD', 'follow'],
    ['response_url: GET, redirects are the answer', { checkType: 'response_url' }, undefined, undefined],
  ])('%s', (_label, overrides, method, redirects) => {
    const check = importOne(overrides).check ?? {};
    expect(check.method).toBe(method);
    expect(check.redirects).toBe(redirects);
  });

  it('a POST with requestPayload becomes a JSON body', () => {
    const spec = importOne({
      checkType: 'message',
      absenceStrs: ['null'],
      urlProbe: 'https://example.com/graphql',
      requestMethod: 'POST',
      requestPayload: { query: '{{ user(name: "{username}") {{ id }} }}' },
    });
    expect(spec.check).toMatchObject({
      url: 'https://example.com/graphql#{username}',
      method: 'POST',
      bodyType: 'json',
      body: '{"query":"{ user(name: \\"{username}\\") { id } }"}',
    });
  });

  it.each([
    [['forum', 'gaming', 'ru'], 'gaming', ['forum', 'ru']],
    [['porn', 'video'], 'nsfw', ['video']],
    [['us'], 'misc', ['us']],
    [['photo', 'social'], 'images', ['social']],
  ])('tags %j give category %s and keep the rest as tags', (tags, category, rest) => {
    const spec = importOne({ tags });
    expect(spec.category).toBe(category);
    expect(spec.tags).toEqual(rest);
  });

  it('keeps the upstream unclaimed name when it fits, and a made-up one otherwise', () => {
    expect(importOne({}).known).toEqual({ claimed: ['alice'], unclaimed: ['noonewouldeverusethis7'] });
    expect(importOne({ regexCheck: '^[a-z]+$' }).known).toEqual({
      claimed: ['alice'],
      unclaimed: ['noonewouldeverusethis'],
    });
  });

  it('sets the transport its protection tags call for, as the catalogue maps them (defence-tags.ts)', () => {
    const sites = {
      Plain: base,
      Reputed: { ...base, protection: ['ip_reputation'] },
      Fingerprinted: { ...base, protection: ['tls_fingerprint'] },
      Challenged: { ...base, protection: ['cf_js_challenge', 'tls_fingerprint'] },
      // Read from the redirect itself, which a browser would follow.
      Redirecting: { ...base, protection: ['js_challenge'], checkType: 'response_url' },
    };
    const result = importMaigret({ sites, engines: {}, tags: [] });
    expect(result.rejected).toEqual([]);
    const transports = Object.fromEntries(result.document.platforms.map((p) => [p.name, p.transport]));
    expect(transports).toEqual({
      Plain: undefined,
      Reputed: undefined,
      Fingerprinted: 'impersonate',
      Challenged: 'browser',
      Redirecting: 'impersonate',
    });
    const challenged = result.document.platforms.find((p) => p.name === 'Challenged')!;
    expect(challenged.notes).toContain(
      'Goes by browser: Maigret tags it cf_js_challenge, tls_fingerprint, a JavaScript challenge',
    );
    const { problems } = loadCatalogue({ platforms: result.document.platforms, shields: [] });
    expect(problems).toEqual([]);
  });

  it('detects the format', () => {
    expect(looksLikeMaigret({ sites: {}, engines: {}, tags: [] })).toBe(true);
    expect(looksLikeMaigret({ sites: [] })).toBe(false);
  });
});

describe.skipIf(!REFERENCE)('importMaigret: the reference file', () => {
  // Collected even when skipped: read the file only when it is there.
  if (!REFERENCE) return;
  const doc = JSON.parse(readFileSync(REFERENCE, 'utf8')) as {
    sites: Record<string, Site>;
    engines: Record<string, { site: Record<string, unknown> }>;
  };
  const result = importMaigret(doc);
  const imported = result.document.platforms.length;
  const enabled = Object.values(doc.sites).filter((s) => !s.disabled).length;
  console.log(
    `Maigret: ${result.entries} entries (${enabled} enabled), ${imported} imported, ${result.rejected.length} rejected`,
  );

  it('imports or rejects every entry, with a reason, and imports at least 95% of the enabled ones', () => {
    expect(result.entries).toBe(Object.keys(doc.sites).length);
    expect(imported + result.rejected.length).toBe(result.entries);
    for (const r of result.rejected) expect(r.reason.trim(), r.name).not.toBe('');
    expect(result.rejected.filter((r) => r.reason === 'disabled upstream')).toHaveLength(
      result.entries - enabled,
    );
    expect(imported / enabled).toBeGreaterThanOrEqual(0.95);
  });

  it('produces a catalogue the loader accepts whole', () => {
    const { catalogue, problems } = loadCatalogue(result.document);
    expect(problems).toEqual([]);
    expect(catalogue.platforms).toHaveLength(imported);
  });

  it('never calls a hit or a miss that Maigret would not, and agrees on its typical answers', () => {
    const { catalogue } = loadCatalogue(result.document);
    for (const platform of catalogue.platforms) {
      // A second "Profi.ru" (the first is "profi.ru") is imported as "Profi.ru (2)".
      const raw = doc.sites[platform.name] ?? doc.sites[platform.name.replace(/ \(\d+\)$/, '')]!;
      const site = (raw.engine ? applyEngine(raw, doc.engines[raw.engine]!.site) : raw) as Site;
      const presence = [...(site.presenseStrs ?? []), ...(site.presenceStrs ?? [])];
      const absence = site.absenceStrs ?? [];
      const errorTexts = Object.keys(site.errors ?? {});
      // A presence text can also be one of the site's error texts (XSS.is: "log in to see this").
      const found: [number, string] = [
        200,
        presence.find((p) => !errorTexts.some((e) => p.includes(e))) ?? 'x',
      ];
      const missing: [number, string] =
        site.checkType === 'message'
          ? [200, absence[0] ?? 'x']
          : site.checkType === 'status_code'
            ? [404, 'x']
            : [302, ''];
      expect(upstreamVerdict(site, ...found), platform.name).toBe('hit');
      expect(verdict(platform, ...found), platform.name).toBe('hit');
      expect(upstreamVerdict(site, ...missing), platform.name).toBe('miss');
      expect(verdict(platform, ...missing), platform.name).toBe('miss');
      const errors = errorTexts.slice(0, 1);
      for (const status of [200, 302, 403, 404, 500]) {
        for (const body of ['', 'x', ...presence, ...absence, ...errors]) {
          const ours = verdict(platform, status, body);
          const theirs = upstreamVerdict(site, status, body);
          if (ours === 'hit') expect(theirs, `${platform.name} ${status} ${body}`).toBe('hit');
          // Maigret gives unknown on a 403 or 5xx before reading the page; our missing list cannot say "and the status is not 5xx".
          if (ours === 'miss') expect(theirs, `${platform.name} ${status} ${body}`).not.toBe('hit');
        }
      }
    }
  });

  it.each([
    [
      'status_code',
      'Docker Hub',
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'message',
      'Reddit',
      undefined, // checked below from the upstream strings
    ],
    [
      'response_url',
      'Pastebin',
      { exists: [{ status: [...SUCCESS] }, NON_EMPTY], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
  ])('maps a %s site: %s', (kind, name, detect) => {
    const spec = result.document.platforms.find((p) => p.name === name);
    expect(spec, name).toBeDefined();
    const site = doc.sites[name]!;
    expect(site.checkType).toBe(kind);
    if (detect) {
      expect(spec!.detect).toEqual(detect);
    } else {
      expect(spec!.detect.missing).toHaveLength(1);
      const body = site.absenceStrs![0]!;
      const platform = loadCatalogue({ platforms: [spec!] }).catalogue.platforms[0]!;
      expect(verdict(platform, 200, body)).toBe('miss');
      expect(verdict(platform, 200, site.presenseStrs![0]!)).toBe('hit');
    }
  });
});
