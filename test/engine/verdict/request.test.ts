import { describe, expect, it } from 'vitest';
import { buildRequest, fillBody, fillUrlTemplate } from '../../../src/engine/verdict/request.js';
import { catalogueOf, entry } from '../../support/catalogue.js';

const HOSTILE = [
  'a/../b',
  'x#y',
  'x?y=1',
  '@evil.test',
  '%2e%2e',
  'a\r\nHost: evil.test',
  'a\nb',
  'evil。test',
  'evil．test',
  'ехample', // Cyrillic homoglyphs
  'a:80',
  'a\\b',
  '..',
  '.',
  'x'.repeat(10_000),
  ' alice',
  'a b',
  '\u0000',
  '\u202eevil',
];

const catalogue = catalogueOf([
  // Any script and URL punctuation: without a pattern of its own a platform takes ASCII only.
  entry('Path', {
    profile: 'https://path.test/u/{username}',
    username: { pattern: '^[\\p{L}\\p{N}._!()*-]+$' },
  }),
  entry('Query', { profile: 'https://query.test/profile?name={username}&tab=1' }),
  entry('Host', { profile: 'https://{username}.host.test/' }),
  entry('Post', {
    profile: 'https://post.test/{username}',
    check: { url: 'https://post.test/api', method: 'POST', body: '{"user":"{username}"}' },
    username: { pattern: '^[\\p{L}\\p{N}-]+$' },
  }),
  entry('Form', {
    profile: 'https://form.test/{username}',
    check: { url: 'https://form.test/api', method: 'POST', body: 'user={username}&x=1', bodyType: 'form' },
  }),
  entry('Lower', { profile: 'https://lower.test/{username}', username: { lowercase: true } }),
  entry('Rule', {
    profile: 'https://rule.test/{username}',
    username: { pattern: '^[a-z]{2,5}$' },
    known: { claimed: ['abc'], unclaimed: ['zzzzz'] },
  }),
  entry('Api', {
    profile: 'https://api.test/people/{username}',
    check: { url: 'https://api.test/v1/users/{username}.json', headers: { Accept: 'application/json' } },
  }),
]);
const p = (name: string) => catalogue.platforms.find((x) => x.name === name)!;
const HEADERS = { 'User-Agent': 'test' };

describe('buildRequest: placement of the username', () => {
  it.each([
    ['Path', 'alice', 'https://path.test/u/alice'],
    ['Path', 'a.b-c_d', 'https://path.test/u/a.b-c_d'],
    ['Path', 'ünï', 'https://path.test/u/%C3%BCn%C3%AF'],
    ['Path', 'a!()*', 'https://path.test/u/a%21%28%29%2A'],
    ['Query', 'a&b=c', 'https://query.test/profile?name=a%26b%3Dc&tab=1'],
    ['Host', 'Alice', 'https://alice.host.test/'],
    ['Api', 'bob', 'https://api.test/v1/users/bob.json'],
    ['Lower', 'BoB', 'https://lower.test/bob'],
  ])('%s with %j -> %s', (name, username, url) => {
    const built = buildRequest(p(name), username, HEADERS);
    expect(built.ok).toBe(true);
    if (built.ok) expect(built.request.url).toBe(url);
  });

  it('keeps the profile URL apart from the check URL', () => {
    const built = buildRequest(p('Api'), 'bob', HEADERS);
    expect(built).toMatchObject({ ok: true, profileUrl: 'https://api.test/people/bob' });
    if (built.ok)
      expect(built.request.headers).toMatchObject({ 'User-Agent': 'test', Accept: 'application/json' });
  });

  it('escapes the name as a JSON string in a JSON body', () => {
    expect(fillBody('{"user":"{username}"}', 'a"b\\c', 'json')).toBe('{"user":"a\\"b\\\\c"}');
    expect(JSON.parse(fillBody('{"user":"{username}"}', 'a"}, "x": "y', 'json'))).toEqual({
      user: 'a"}, "x": "y',
    });
    const built = buildRequest(p('Post'), 'ünï', HEADERS);
    expect(built.ok).toBe(true);
    if (built.ok) {
      expect(JSON.parse(built.request.body!)).toEqual({ user: 'ünï' });
      expect(built.request.headers['Content-Type']).toBe('application/json');
      expect(built.request.method).toBe('POST');
    }
  });

  it('percent-encodes the name in a form body', () => {
    const built = buildRequest(p('Form'), 'a&x=2', HEADERS);
    if (!built.ok) throw new Error('expected ok');
    expect(built.request.body).toBe('user=a%26x%3D2&x=1');
    expect(new URLSearchParams(built.request.body).get('user')).toBe('a&x=2');
  });

  it('applies the platform rule and sends nothing when it is broken', () => {
    expect(buildRequest(p('Rule'), 'abcdef', HEADERS)).toMatchObject({ ok: false, reason: 'username_rule' });
    expect(buildRequest(p('Rule'), 'abc', HEADERS)).toMatchObject({ ok: true });
  });
});

describe('buildRequest: folding never turns a name into another one', () => {
  const KELVIN = '\u212Aelvin'; // KELVIN SIGN, which toLowerCase() turns into the letter k

  it('refuses a name whose lowercasing changes a letter into another, on a lowercasing platform', () => {
    const built = buildRequest(p('Lower'), KELVIN, HEADERS);
    expect(built).toMatchObject({ ok: false, reason: 'username_rule' });
    if (!built.ok) {
      expect(built.message).toContain('U+212A');
      expect(built.profileUrl).not.toContain('/kelvin');
    }
    expect(buildRequest(p('Lower'), '\u0130stanbul', HEADERS)).toMatchObject({ ok: false });
    expect(buildRequest(p('Lower'), 'KELVIN', HEADERS)).toMatchObject({
      ok: true,
      request: { url: 'https://lower.test/kelvin' },
    });
  });

  it('puts into a host name only what is a DNS label before lowercasing', () => {
    // Refused either way, nothing sent: by the fold check, or by the ASCII-only default rule.
    const kelvin = buildRequest(p('Host'), KELVIN, HEADERS);
    expect(kelvin.ok).toBe(false);
    expect(['unsafe_username', 'username_rule']).toContain((kelvin as { reason: string }).reason);
    expect(buildRequest(p('Host'), 'bo\u017Fs', HEADERS)).toMatchObject({ ok: false }); // LONG S, upper S
    expect(fillUrlTemplate('https://{username}.a.test/', KELVIN)).toBeUndefined();
  });

  it('sends the name as given where the platform does not lowercase', () => {
    const built = buildRequest(p('Path'), KELVIN, HEADERS);
    expect(built).toMatchObject({ ok: true, request: { url: 'https://path.test/u/%E2%84%AAelvin' } });
  });

  it('refuses a lone surrogate on every platform instead of throwing', () => {
    for (const name of ['Path', 'Query', 'Host', 'Api', 'Post', 'Form', 'Lower'])
      expect(buildRequest(p(name), '\ud800abc', HEADERS)).toMatchObject({
        ok: false,
        reason: 'unsafe_username',
      });
  });
});

describe('buildRequest: a hostile name never changes scheme, host or port', () => {
  for (const name of ['Path', 'Query', 'Host', 'Api', 'Post']) {
    it.each(HOSTILE.map((h) => [h]))(`${name} with %j`, (hostile) => {
      const platform = p(name);
      const built = buildRequest(platform, hostile, HEADERS);
      const expected = new URL(platform.check.url.replace('{username}', 'x'));
      if (built.ok) {
        const url = new URL(built.request.url);
        expect(url.protocol).toBe(expected.protocol);
        expect(url.port).toBe(expected.port);
        if (name === 'Host') expect(url.hostname.endsWith('.host.test')).toBe(true);
        else expect(url.hostname).toBe(expected.hostname);
        expect(built.request.url).not.toMatch(/[\r\n\s]/);
        const path =
          name === 'Query'
            ? url.searchParams.get('name')
            : decodeURIComponent(url.pathname.split('/').pop() ?? '');
        if (name === 'Path' || name === 'Query') expect(path).toBe(hostile);
      } else {
        expect(['username_rule', 'unsafe_username']).toContain(built.reason);
      }
    });
  }

  it('refuses names with structural characters, controls, white space and over-long names', () => {
    for (const hostile of [
      'a/../b',
      'x#y',
      'x?y=1',
      '@evil.test',
      '%2e%2e',
      'a\r\nb',
      'x'.repeat(10_000),
      'a b',
      '..',
      '\u202eevil',
    ]) {
      expect(buildRequest(p('Path'), hostile, HEADERS)).toMatchObject({
        ok: false,
        reason: 'unsafe_username',
      });
    }
  });

  it('accepts only a DNS label in a host name', () => {
    for (const hostile of ['evil。test', 'evil．test', 'ехample', 'a_b', '-a', 'a'.repeat(64)]) {
      expect(buildRequest(p('Host'), hostile, HEADERS), hostile).toMatchObject({ ok: false });
    }
    expect(buildRequest(p('Host'), 'good-name-1', HEADERS)).toMatchObject({ ok: true });
  });

  it('fillUrlTemplate refuses a result on another origin', () => {
    expect(fillUrlTemplate('https://a.test/{username}', 'x')).toBe('https://a.test/x');
    expect(fillUrlTemplate('https://{username}.a.test/', 'evil.test#')).toBeUndefined();
    expect(fillUrlTemplate('https://{username}.a.test/', 'a.b')).toBeUndefined();
  });

  it('fillUrlTemplate answers the same for a template it has seen before (its parts are kept)', () => {
    const cases: [string, string][] = [
      ['https://a.test:8443/u/{username}', 'Name'],
      ['https://a.test:8443/u/{username}', 'x/../y'],
      ['https://{username}.a.test/', 'Name'],
      ['https://{username}.a.test/', 'a.b'],
      ['https://a b.test/{username}', 'x'],
      ['ftp://a.test/{username}', 'x'],
    ];
    const first = cases.map(([template, name]) => fillUrlTemplate(template, name));
    expect(first).toEqual([
      'https://a.test:8443/u/Name',
      'https://a.test:8443/u/x%2F..%2Fy',
      'https://name.a.test/',
      undefined,
      undefined,
      undefined,
    ]);
    expect(cases.map(([template, name]) => fillUrlTemplate(template, name))).toEqual(first);
  });
});
