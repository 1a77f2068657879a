import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importSherlock, looksLikeSherlock } from '../../../src/catalogue/importers/sherlock.js';
import { NOT_FOUND_LIKE, SUCCESS } from '../../../src/catalogue/importers/status-codes.js';
import { loadCatalogue } from '../../../src/catalogue/loader.js';
import type { Platform } from '../../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../../src/catalogue/schema.js';
import { classify } from '../../../src/engine/verdict/classify.js';
import { referenceFile } from '../../support/reference.js';

const REFERENCE = referenceFile('sherlock/data.json');

interface Site {
  url: string;
  errorType: string | string[];
  errorMsg?: string | string[];
  errorCode?: number | number[];
  username_claimed: string;
  [key: string]: unknown;
}

const base: Site = {
  url: 'https://example.com/u/{}',
  urlMain: 'https://example.com/',
  errorType: 'status_code',
  username_claimed: 'alice',
};

function importOne(overrides: Record<string, unknown>): PlatformSpec {
  const result = importSherlock({ $schema: 'data.schema.json', Example: { ...base, ...overrides } });
  if (result.rejected.length > 0) throw new Error(result.rejected[0]!.reason);
  return result.document.platforms[0]!;
}

function rejectionOf(overrides: Record<string, unknown>): string | undefined {
  return importSherlock({ Example: { ...base, ...overrides } }).rejected[0]?.reason;
}

function verdict(platform: Platform, status: number, body: string): string {
  const view = { status, headers: {}, url: platform.check.url, redirected: false, body, complete: true };
  const result = classify(platform, view, []);
  return result === 'pending' ? 'pending' : result.status;
}

/** Sherlock's reading of an answer (sherlock_project/sherlock.py), WAF detection aside. */
function upstreamVerdict(site: Site, status: number, body: string): string {
  const types = Array.isArray(site.errorType) ? site.errorType : [site.errorType];
  for (const type of types) {
    if (type === 'message') {
      const messages = typeof site.errorMsg === 'string' ? [site.errorMsg] : (site.errorMsg ?? []);
      if (messages.some((m) => body.includes(m))) return 'miss';
    } else if (type === 'status_code') {
      const codes = typeof site.errorCode === 'number' ? [site.errorCode] : (site.errorCode ?? []);
      if (codes.includes(status) || status < 200 || status >= 300) return 'miss';
    } else if (status < 200 || status >= 300) {
      return 'miss';
    }
  }
  return 'hit';
}

describe('importSherlock: detection rules', () => {
  it.each([
    [
      'status_code: 2xx is a hit, a redirect or client error a miss',
      {},
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'status_code with errorCode: those codes are a miss too, even a 2xx',
      { errorCode: 204 },
      {
        exists: [{ status: SUCCESS.filter((c) => c !== 204) }],
        missing: [{ status: [204, ...NOT_FOUND_LIKE] }],
      },
    ],
    [
      'message with one errorMsg',
      { errorType: 'message', errorMsg: 'User not found' },
      { exists: [{ status: [...SUCCESS] }], missing: [{ text: 'User not found' }] },
    ],
    [
      'message with a list of errorMsg: any of them',
      { errorType: 'message', errorMsg: ['Not found', 'Gone'] },
      { exists: [{ status: [...SUCCESS] }], missing: [{ text: 'Not found' }, { text: 'Gone' }] },
    ],
    [
      'response_url: 2xx is a hit, a redirect a miss',
      { errorType: 'response_url', errorUrl: 'https://example.com/' },
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'several errorTypes combine',
      { errorType: ['message', 'status_code'], errorMsg: 'Nope' },
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }, { text: 'Nope' }] },
    ],
  ])('%s', (_label, overrides, detect) => {
    expect(importOne(overrides).detect).toEqual(detect);
  });

  it.each([
    ['status_code', {}, 'HEAD', 'follow'],
    ['message', { errorType: 'message', errorMsg: 'x' }, undefined, 'follow'],
    ['response_url', { errorType: 'response_url' }, undefined, undefined],
    ['explicit request_method', { request_method: 'GET' }, undefined, 'follow'],
  ])('%s: method and redirects as Sherlock sends them', (_label, overrides, method, redirects) => {
    const check = importOne(overrides).check ?? {};
    expect(check.method).toBe(method);
    expect(check.redirects).toBe(redirects);
  });

  it('answers that say nothing about the account give unknown, not Sherlock’s "available"', () => {
    const platform = loadCatalogue({ platforms: [importOne({})] }).catalogue.platforms[0]!;
    expect(verdict(platform, 200, '')).toBe('hit');
    expect(verdict(platform, 404, '')).toBe('miss');
    expect(verdict(platform, 503, '')).toBe('unknown');
    expect(verdict(platform, 403, '')).toBe('unknown');
  });

  it.each([
    ['errorType message without errorMsg', { errorType: 'message' }],
    ['an empty errorMsg matches every page', { errorType: 'message', errorMsg: ['x', ''] }],
    ['malformed entry: errorType must be one of', { errorType: 'teapot' }],
    ['uses request method PUT', { request_method: 'PUT' }],
    ['regexCheck "(?i)^a$" uses inline flags', { regexCheck: '(?i)^a$' }],
    ["breaks the platform's own username rule", { regexCheck: '^[0-9]+$' }],
  ])('rejects: %s', (reason, overrides) => {
    expect(rejectionOf(overrides)).toContain(reason);
  });
});

describe('importSherlock: requests and entry data', () => {
  it('urlProbe is the check, url the profile, urlMain the home', () => {
    const spec = importOne({ urlProbe: 'https://api.example.com/users/{}' });
    expect(spec.profile).toBe('https://example.com/u/{username}');
    expect(spec.check?.url).toBe('https://api.example.com/users/{username}');
    expect(spec.home).toBe('https://example.com/');
  });

  it('a POST payload becomes a JSON body with the placeholder in every string', () => {
    const spec = importOne({
      urlProbe: 'https://api.example.com/graphql',
      request_method: 'POST',
      request_payload: {
        query: 'query { user(name: "{}") { id } }',
        variables: { names: ['{}'], empty: {} },
      },
    });
    expect(spec.check).toMatchObject({
      url: 'https://api.example.com/graphql#{username}',
      method: 'POST',
      bodyType: 'json',
      body: '{"query":"query { user(name: \\"{username}\\") { id } }","variables":{"names":["{username}"],"empty":{}}}',
    });
  });

  it('regexCheck is converted from Python', () => {
    expect(importOne({ regexCheck: '^[\\w-]{,34}$' }).username).toEqual({
      pattern: '^[_\\p{L}\\p{N}-]{0,34}$',
    });
  });

  it('an unclaimed name is made up to fit the rule', () => {
    expect(importOne({ regexCheck: '^[a-z]{3,10}$' }).known).toEqual({
      claimed: ['alice'],
      unclaimed: ['noonewould'],
    });
  });

  it('isNSFW gives category nsfw; otherwise misc, as Sherlock has no categories', () => {
    expect(importOne({ isNSFW: true }).category).toBe('nsfw');
    expect(importOne({}).category).toBe('misc');
  });

  it('headers and comments are kept', () => {
    const spec = importOne({ headers: { Accept: 'text/html' }, __comment__: 'Cloudflare.' });
    expect(spec.check?.headers).toEqual({ Accept: 'text/html' });
    expect(spec.notes).toBe('Sherlock: Cloudflare.');
  });

  it('detects the format, skipping $schema', () => {
    expect(looksLikeSherlock({ $schema: 'x', A: base })).toBe(true);
    expect(looksLikeSherlock({ a: 1 })).toBe(false);
    expect(looksLikeSherlock({ sites: {} })).toBe(false);
  });
});

describe.skipIf(!REFERENCE)('importSherlock: the reference file', () => {
  // Collected even when skipped: read the file only when it is there.
  if (!REFERENCE) return;
  const doc = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Record<string, Site>;
  const result = importSherlock(doc);
  const imported = result.document.platforms.length;
  console.log(
    `Sherlock: ${result.entries} entries, ${imported} imported, ${result.rejected.length} rejected`,
  );

  it('imports or rejects every entry, with a reason, and imports at least 99%', () => {
    expect(result.entries).toBe(Object.keys(doc).filter((k) => k !== '$schema').length);
    expect(imported + result.rejected.length).toBe(result.entries);
    for (const r of result.rejected) expect(r.reason.trim(), r.name).not.toBe('');
    expect(imported / result.entries).toBeGreaterThanOrEqual(0.99);
  });

  it('produces a catalogue the loader accepts whole', () => {
    const { catalogue, problems } = loadCatalogue(result.document);
    expect(problems).toEqual([]);
    expect(catalogue.platforms).toHaveLength(imported);
  });

  it('never contradicts Sherlock, and agrees on its typical answers', () => {
    const { catalogue } = loadCatalogue(result.document);
    for (const platform of catalogue.platforms) {
      const site = doc[platform.name]!;
      const messages = typeof site.errorMsg === 'string' ? [site.errorMsg] : (site.errorMsg ?? []);
      const types = Array.isArray(site.errorType) ? site.errorType : [site.errorType];
      expect(verdict(platform, 200, ''), platform.name).toBe('hit');
      const missing: [number, string] = types.includes('message') ? [200, messages[0]!] : [404, ''];
      expect(verdict(platform, ...missing), platform.name).toBe('miss');
      for (const status of [200, 204, 301, 302, 403, 404, 410, 500, 503]) {
        for (const body of ['', ...messages]) {
          const ours = verdict(platform, status, body);
          if (ours !== 'unknown') {
            expect(ours, `${platform.name} ${status} ${body}`).toBe(upstreamVerdict(site, status, body));
          }
        }
      }
    }
  });

  it.each([
    [
      'status_code',
      'GitHub',
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
    [
      'message',
      'Reddit',
      {
        exists: [{ status: [...SUCCESS] }],
        missing: [{ text: 'Sorry, nobody on Reddit goes by that name.' }],
      },
    ],
    [
      'response_url',
      'Avizo',
      { exists: [{ status: [...SUCCESS] }], missing: [{ status: [...NOT_FOUND_LIKE] }] },
    ],
  ])('maps a %s site: %s', (_kind, name, detect) => {
    const spec = result.document.platforms.find((p) => p.name === name)!;
    expect(spec.detect).toEqual(detect);
    expect(spec.check?.redirects).toBe(name === 'Avizo' ? undefined : 'follow');
  });
});
