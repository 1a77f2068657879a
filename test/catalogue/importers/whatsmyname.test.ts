import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importWhatsMyName, looksLikeWhatsMyName } from '../../../src/catalogue/importers/whatsmyname.js';
import { loadCatalogue } from '../../../src/catalogue/loader.js';
import type { Platform } from '../../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../../src/catalogue/schema.js';
import { classify } from '../../../src/engine/verdict/classify.js';
import { referenceFile } from '../../support/reference.js';

const REFERENCE = referenceFile('whatsmyname/wmn-data.json');

const base = {
  name: 'Example',
  uri_check: 'https://example.com/u/{account}',
  e_code: 200,
  e_string: 'profile-header',
  m_code: 404,
  m_string: '',
  known: ['alice'],
  cat: 'social',
};

function importOne(overrides: Record<string, unknown>): PlatformSpec {
  const result = importWhatsMyName({ sites: [{ ...base, ...overrides }] });
  if (result.rejected.length > 0) throw new Error(result.rejected[0]!.reason);
  return result.document.platforms[0]!;
}

function rejectionOf(overrides: Record<string, unknown>): string | undefined {
  return importWhatsMyName({ sites: [{ ...base, ...overrides }] }).rejected[0]?.reason;
}

function verdict(platform: Platform, status: number, body: string): string {
  const view = { status, headers: {}, url: platform.check.url, redirected: false, body, complete: true };
  const result = classify(platform, view, []);
  return result === 'pending' ? 'pending' : result.status;
}

/** WhatsMyName's own reading of an answer (scripts/checker of the upstream project). */
function upstreamVerdict(site: typeof base, status: number, body: string): string {
  if (status === site.e_code && body.includes(site.e_string)) return 'hit';
  if (status === site.m_code && body.includes(site.m_string)) return 'miss';
  return 'unknown';
}

describe('importWhatsMyName: detection rules', () => {
  it.each([
    [
      'distinct codes, no m_string: the status alone',
      { e_code: 200, m_code: 404, m_string: '' },
      { exists: [{ status: [200] }, { text: 'profile-header' }], missing: [{ status: [404] }] },
    ],
    [
      'same codes: the m_string alone',
      { e_code: 200, m_code: 200, m_string: 'No such user' },
      { exists: [{ status: [200] }, { text: 'profile-header' }], missing: [{ text: 'No such user' }] },
    ],
    [
      'not-found m_code with an m_string: the status, which cannot be mistaken',
      { m_code: 404, m_string: 'Page not found' },
      { exists: [{ status: [200] }, { text: 'profile-header' }], missing: [{ status: [404] }] },
    ],
    [
      'redirect m_code (a response_url site)',
      { m_code: 302, m_string: '' },
      { exists: [{ status: [200] }, { text: 'profile-header' }], missing: [{ status: [302] }] },
    ],
    [
      'success m_code with an m_string: the text (a 200 is also what an error page sends)',
      { e_code: 400, e_string: 'taken', m_code: 200, m_string: '"status":"ok"' },
      { exists: [{ status: [400] }, { text: 'taken' }], missing: [{ text: '"status":"ok"' }] },
    ],
    [
      'server-error m_code with an m_string: the text',
      { m_code: 500, m_string: 'User not found' },
      { exists: [{ status: [200] }, { text: 'profile-header' }], missing: [{ text: 'User not found' }] },
    ],
    [
      'same codes, no m_string: a compound signal, the status and the body lacking e_string',
      { e_code: 200, m_code: 200, m_string: '' },
      {
        exists: [{ status: [200] }, { text: 'profile-header' }],
        missing: [{ all: [{ status: [200] }, { not: { text: 'profile-header' } }] }],
      },
    ],
    [
      'empty e_string: the status alone',
      { e_string: '', m_code: 301, m_string: '' },
      { exists: [{ status: [200] }], missing: [{ status: [301] }] },
    ],
  ])('%s', (_label, overrides, detect) => {
    expect(importOne(overrides).detect).toEqual(detect);
  });

  it('classifies the upstream examples of an answer as upstream does', () => {
    const site = { ...base, m_code: 200, m_string: 'No such user' };
    const platform = loadCatalogue({ platforms: [importOne(site)] }).catalogue.platforms[0]!;
    expect(verdict(platform, 200, '<div class="profile-header">')).toBe('hit');
    expect(verdict(platform, 200, 'No such user')).toBe('miss');
    expect(verdict(platform, 503, 'maintenance')).toBe('unknown');
  });

  it('classifies a same-codes site without m_string (Blogmarks, Evolution CMS) as upstream does', () => {
    const site = { ...base, e_string: 'class="mark"', m_code: 200, m_string: '' };
    const platform = loadCatalogue({ platforms: [importOne(site)] }).catalogue.platforms[0]!;
    for (const [status, body, expected] of [
      [200, '<ul><li class="mark">a bookmark</li></ul>', 'hit'],
      [200, '<p>This user has no bookmarks</p>', 'miss'],
      [404, '<p>Not found</p>', 'unknown'],
      [503, 'maintenance', 'unknown'],
    ] as const) {
      expect(verdict(platform, status, body), body).toBe(expected);
      expect(upstreamVerdict(site, status, body), body).toBe(expected);
    }
  });

  it.each([
    [
      'no way to tell a missing account: m_code equals e_code and both strings are empty',
      { e_code: 200, m_code: 200, e_string: '', m_string: '' },
    ],
    ['m_string is part of e_string', { e_code: 200, m_code: 200, e_string: 'user: found', m_string: 'user' }],
    ['disabled upstream (valid: false)', { valid: false }],
    ['malformed entry: e_code must be an HTTP status', { e_code: 'two hundred' }],
    ['uri_check has no {account} placeholder', { uri_check: 'https://example.com/users' }],
    [
      'uri_check contains the literal text {username}',
      { uri_check: 'https://example.com/{username}/{account}' },
    ],
    ['no known account name userscout can search', { known: ['two words'] }],
  ])('rejects: %s', (reason, overrides) => {
    expect(rejectionOf(overrides)).toContain(reason);
  });
});

describe('importWhatsMyName: requests', () => {
  it('a POST to a fixed API: the placeholder goes in the fragment, never sent', () => {
    const spec = importOne({
      uri_check: 'https://api.example.com/check',
      uri_pretty: 'https://example.com/@{account}',
      post_body: '{"username":"{account}"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(spec.profile).toBe('https://example.com/@{username}');
    expect(spec.check).toEqual({
      url: 'https://api.example.com/check#{username}',
      method: 'POST',
      body: '{"username":"{username}"}',
      bodyType: 'json',
      headers: { 'Content-Type': 'application/json' },
    });
  });

  it.each([
    ['application/x-www-form-urlencoded; charset=UTF-8', 'form'],
    ['application/json', 'json'],
    ['text/plain', 'text'],
  ])('the body type follows the Content-Type %s', (contentType, bodyType) => {
    const spec = importOne({ post_body: 'user={account}', headers: { 'Content-Type': contentType } });
    expect(spec.check?.bodyType).toBe(bodyType);
  });

  it('uri_pretty is the profile and uri_check the check', () => {
    const spec = importOne({
      uri_check: 'https://api.example.com/u/{account}',
      uri_pretty: 'https://example.com/{account}',
    });
    expect(spec.profile).toBe('https://example.com/{username}');
    expect(spec.check).toEqual({ url: 'https://api.example.com/u/{username}' });
    expect(spec.home).toBe('https://example.com/');
  });

  it('without any profile address, the link opens the site', () => {
    const spec = importOne({
      uri_check: 'https://example.com/api',
      post_body: 'u={account}',
      headers: { A: 'b' },
    });
    expect(spec.profile).toBe('https://example.com/#{username}');
    expect(spec.notes).toContain('No profile page upstream');
  });

  it('a host placeholder gives the parent domain as home', () => {
    expect(importOne({ uri_check: 'https://{account}.blogs.example.com/' }).home).toBe(
      'https://blogs.example.com/',
    );
  });

  it('strip_bad_char: such names are refused, and the known names are stripped as upstream checks them', () => {
    const spec = importOne({ strip_bad_char: '.-', known: ['jo.hn', 'ann'] });
    expect(spec.username).toEqual({ pattern: '^[^\\.\\-]+$' });
    expect(spec.known.claimed).toEqual(['john', 'ann']);
    expect(new RegExp(spec.username!.pattern!, 'u').test('a.b')).toBe(false);
  });
});

describe('importWhatsMyName: entry data', () => {
  it.each([
    ['coding', 'coding', undefined],
    ['xx NSFW xx', 'nsfw', undefined],
    ['search', 'misc', ['search']],
    ['something-new', 'misc', ['something-new']],
  ])('category %s', (cat, category, tags) => {
    const spec = importOne({ cat });
    expect(spec.category).toBe(category);
    expect(spec.tags).toEqual(tags);
  });

  it('known names become claimed, and an improbable name is made up as unclaimed', () => {
    expect(importOne({ known: ['alice', 'Bob Smith', 'carol'] }).known).toEqual({
      claimed: ['alice', 'carol'],
      unclaimed: ['noonewouldeverusethis7'],
    });
  });

  it('protection and headers are kept', () => {
    const spec = importOne({ protection: ['cloudflare', 'captcha'], headers: { 'User-Agent': 'x' } });
    expect(spec.notes).toBe(
      "Upstream notes anti-bot protection: cloudflare, captcha. Goes by impersonate: WhatsMyName tags it cloudflare, a shield that refuses a handshake that is not a browser's.",
    );
    expect(spec.check?.headers).toEqual({ 'User-Agent': 'x' });
  });

  it('sets the transport its protection tags call for, as the catalogue maps them (defence-tags.ts)', () => {
    const doc = {
      sites: [
        { ...base, name: 'Plain' },
        { ...base, name: 'Captcha', protection: ['captcha'] },
        { ...base, name: 'Shielded', protection: ['cloudflare'] },
        { ...base, name: 'Guarded', protection: ['ddos-guard', 'cloudflare'] },
        // WhatsMyName never follows a redirect: a 302 for a missing account is one a browser would follow.
        { ...base, name: 'Redirecting', protection: ['anubis'], m_code: 302 },
        { ...base, name: 'Posting', protection: ['anubis'], post_body: '{"u":"{account}"}' },
      ],
    };
    const result = importWhatsMyName(doc);
    expect(result.rejected).toEqual([]);
    const transports = Object.fromEntries(result.document.platforms.map((p) => [p.name, p.transport]));
    expect(transports).toEqual({
      Plain: undefined,
      Captcha: undefined,
      Shielded: 'impersonate',
      Guarded: 'browser',
      Redirecting: 'impersonate',
      Posting: 'impersonate',
    });
    const notes = (name: string) => result.document.platforms.find((p) => p.name === name)!.notes;
    expect(notes('Guarded')).toContain('Goes by browser: WhatsMyName tags it ddos-guard, cloudflare');
    expect(notes('Redirecting')).toContain('this check reads a redirect, which a browser follows');
    expect(notes('Posting')).toContain('this check is a POST');
    // The loader takes them as they are.
    const { problems } = loadCatalogue({ platforms: result.document.platforms, shields: [] });
    expect(problems).toEqual([]);
  });

  it('keeps names unique', () => {
    const result = importWhatsMyName({ sites: [base, { ...base, name: 'EXAMPLE' }] });
    expect(result.document.platforms.map((p) => p.name)).toEqual(['Example', 'EXAMPLE (2)']);
  });

  it("keeps ids unique too: a name giving an earlier entry's id is numbered, not lost at load", () => {
    const result = importWhatsMyName({
      sites: [
        { ...base, name: 'Foo Bar' },
        { ...base, name: 'Foo.Bar' },
      ],
    });
    expect(result.document.platforms.map((p) => p.name)).toEqual(['Foo Bar', 'Foo.Bar (2)']);
    const loaded = loadCatalogue(result.document);
    expect(loaded.problems).toEqual([]);
    expect(loaded.catalogue.platforms.map((p) => p.id)).toEqual(['foo-bar', 'foo-bar-2']);
  });

  it('detects the format', () => {
    expect(looksLikeWhatsMyName({ sites: [base] })).toBe(true);
    expect(looksLikeWhatsMyName({ sites: { a: {} } })).toBe(false);
    expect(looksLikeWhatsMyName({ platforms: [] })).toBe(false);
  });
});

describe.skipIf(!REFERENCE)('importWhatsMyName: the reference file', () => {
  // Collected even when skipped: read the file only when it is there.
  if (!REFERENCE) return;
  const doc = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { sites: (typeof base & { valid?: boolean })[] };
  const result = importWhatsMyName(doc);
  const imported = result.document.platforms.length;
  console.log(
    `WhatsMyName: ${result.entries} entries, ${imported} imported, ${result.rejected.length} rejected`,
  );

  it('imports every entry WhatsMyName marks valid; rejects only the others, with a reason', () => {
    expect(result.rejected.map((r) => r.reason)).toEqual(
      doc.sites.filter((s) => s.valid === false).map(() => 'disabled upstream (valid: false)'),
    );
  });

  it('imports or rejects every entry, with a reason, and imports at least 99%', () => {
    expect(result.entries).toBe(doc.sites.length);
    expect(imported + result.rejected.length).toBe(result.entries);
    for (const r of result.rejected) expect(r.reason.trim(), r.name).not.toBe('');
    expect(imported / result.entries).toBeGreaterThanOrEqual(0.99);
  });

  it('produces a catalogue the loader accepts whole', () => {
    const { catalogue, problems } = loadCatalogue(result.document);
    expect(problems).toEqual([]);
    expect(catalogue.platforms).toHaveLength(imported);
  });

  it('reads every site’s own found and missing answers as WhatsMyName does', () => {
    const { catalogue } = loadCatalogue(result.document);
    const sites = new Map(doc.sites.map((s) => [s.name, s]));
    for (const platform of catalogue.platforms) {
      const site = sites.get(platform.name)!;
      const found = [site.e_code, `<html>${site.e_string}</html>`] as const;
      const missing = [site.m_code, `<html>${site.m_string}</html>`] as const;
      expect(upstreamVerdict(site, ...found), site.name).toBe('hit');
      expect(verdict(platform, ...found), site.name).toBe('hit');
      expect(upstreamVerdict(site, ...missing), site.name).toBe('miss');
      expect(verdict(platform, ...missing), site.name).toBe('miss');
      // Never a hit that WhatsMyName would not call one.
      for (const status of [200, 302, 403, 404, 500]) {
        for (const body of ['', site.e_string, site.m_string]) {
          if (verdict(platform, status, body) === 'hit') {
            expect(upstreamVerdict(site, status, body), site.name).toBe('hit');
          }
        }
      }
    }
  });

  it.each([
    [
      'status (404)',
      '247sports',
      { exists: [{ status: [200] }, { text: 'staff-header-container' }], missing: [{ status: [404] }] },
    ],
    [
      'message (same codes)',
      'Buy Me a Coffee',
      { exists: [{ status: [200] }, { text: '"available":false' }], missing: [{ text: '"available":true' }] },
    ],
    [
      'same codes, no m_string (compound)',
      'Blogmarks',
      {
        exists: [{ status: [200] }, { text: 'class="mark"' }],
        missing: [{ all: [{ status: [200] }, { not: { text: 'class="mark"' } }] }],
      },
    ],
    [
      'same codes, no m_string (compound)',
      'Evolution CMS',
      {
        exists: [{ status: [200] }, { text: 'id="user-search"' }],
        missing: [{ all: [{ status: [200] }, { not: { text: 'id="user-search"' } }] }],
      },
    ],
    [
      'redirect (302)',
      '35photo',
      { exists: [{ status: [200] }, { text: 'userNameBlock' }], missing: [{ status: [302] }] },
    ],
  ])('maps a %s site: %s', (_kind, name, detect) => {
    expect(result.document.platforms.find((p) => p.name === name)?.detect).toEqual(detect);
  });
});
