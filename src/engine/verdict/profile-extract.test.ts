import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../catalogue/loader.js';
import type { Platform } from '../../catalogue/platform.js';
import { cleanCount, cleanText, cleanUrl, extractProfile, PROFILE_READ_CHARS } from './profile-extract.js';
import type { ResponseView } from './response-view.js';

const view = (body: string, type = 'text/html', url = 'https://site.test/u/alice'): ResponseView => ({
  status: 200,
  headers: { 'content-type': type },
  url,
  redirected: false,
  body,
  complete: true,
});
const generic = { extract: undefined } as Pick<Platform, 'extract'>;

function platformWith(extract: unknown): Platform {
  const { catalogue, problems } = loadCatalogue({
    platforms: [
      {
        name: 'Site',
        category: 'social',
        home: 'https://site.test/',
        profile: 'https://site.test/u/{username}',
        detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
        known: { claimed: ['alice'], unclaimed: ['nobody-1'] },
        extract,
      } as never,
    ],
    shields: [],
  });
  if (problems.length > 0) throw new Error(JSON.stringify(problems));
  return catalogue.platforms[0]!;
}

describe('extractProfile', () => {
  it('reads Open Graph, Twitter-card, JSON-LD Person and rel="me"', () => {
    const page = `<!DOCTYPE html><html><head>
      <title>Alice (@alice) | Site</title>
      <meta property="og:title" content="Alice Liddell">
      <meta property="og:description" content="Curious &amp; brave. Follows rabbits.">
      <meta property="og:image" content="/avatars/alice.png">
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"ProfilePage",
        "mainEntity":{"@type":"Person","name":"Alice L.","homeLocation":{"name":"Wonderland"},
        "url":"https://alice.example/","sameAs":["https://github.com/alice","javascript:alert(1)"]}}</script>
      <link rel="me" href="https://mastodon.example/@alice">
      </head><body><a rel="me nofollow" href="https://site.test/u/alice">me</a></body></html>`;
    expect(extractProfile(generic, view(page))).toEqual({
      fullName: 'Alice L.',
      bio: 'Curious & brave. Follows rabbits.',
      location: 'Wonderland',
      avatarUrl: 'https://site.test/avatars/alice.png',
      website: 'https://alice.example/',
      links: ['https://alice.example/', 'https://github.com/alice', 'https://mastodon.example/@alice'],
    });
  });

  it("uses the platform's own rules first: JSON paths, meta names, regex groups, ids", () => {
    const platform = platformWith({
      fullName: { json: 'data.user.display_name' },
      followers: { json: 'data.user.stats.followers' },
      createdAt: { json: 'data.user.created' },
      ids: { userId: { json: 'data.user.id' } },
    });
    const body = JSON.stringify({
      data: {
        user: { id: 12345, display_name: 'Alice', created: '2019-04-01', stats: { followers: '1.2k' } },
      },
    });
    expect(extractProfile(platform, view(body, 'application/json'))).toEqual({
      fullName: 'Alice',
      createdAt: '2019-04-01',
      followers: 1200,
      ids: { userId: '12345' },
    });
    const regex = platformWith({
      location: { regex: 'Lives in <b>(?<value>[^<]+)</b>' },
      bio: { meta: 'Description' },
    });
    expect(
      extractProfile(regex, view('<meta name="description" content="Hi"><p>Lives in <b>Paris</b></p>')),
    ).toEqual({ location: 'Paris', bio: 'Hi' });
  });

  it('never keeps markup, script or a non-http URL, and caps long values', () => {
    const xss = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const page = `<head><meta property="og:title" content="${xss.replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}">
      <meta property="og:description" content="&lt;script&gt;alert(3)&lt;/script&gt;Bio ${'x'.repeat(5000)}">
      <meta property="og:image" content="javascript:alert(4)">
      <link rel="me" href="data:text/html,<script>alert(5)</script>">
      <link rel="me" href="https://user:pass@evil.test/">
      <script type="application/ld+json">{"@type":"Person", "name": </script></head>`;
    const profile = extractProfile(generic, view(page))!;
    expect(profile.fullName).toBe('alert(1)');
    expect(profile.bio!.length).toBeLessThanOrEqual(1000);
    expect(profile.bio!.startsWith('alert(3) Bio xxx')).toBe(true);
    expect(profile.avatarUrl).toBeUndefined();
    expect(profile.links).toBeUndefined();
    expect(JSON.stringify(profile)).not.toMatch(/[<>]|javascript:/);
  });

  it('reads a website typed without a scheme as a host, not as a path of the API', () => {
    const platform = platformWith({ website: { json: 'blog' }, avatarUrl: { json: 'avatar' } });
    const answer = (blog: string) =>
      extractProfile(
        platform,
        view(
          JSON.stringify({ blog, avatar: 'img/a.png' }),
          'application/json',
          'https://api.site.test/users/alice',
        ),
      );
    expect(answer('alice.dev/blog')).toMatchObject({
      website: 'https://alice.dev/blog',
      avatarUrl: 'https://api.site.test/users/img/a.png',
    });
    expect(answer('http://alice.dev')?.website).toBe('http://alice.dev/');
    expect(answer('javascript:alert(1)')?.website).toBeUndefined();
    expect(answer('/about')?.website).toBe('https://api.site.test/about');
  });

  it(`reads details within the first PROFILE_READ_CHARS characters only`, () => {
    const meta = '<meta property="og:title" content="Alice Liddell">';
    const filler = (n: number) => '<p>x</p>'.repeat(Math.ceil(n / 8)).slice(0, n);
    const inside = `<html><head><title>t</title></head><body>${filler(PROFILE_READ_CHARS - 200)}${meta}${filler(1000)}</body></html>`;
    expect(inside.indexOf(meta) + meta.length).toBeLessThan(PROFILE_READ_CHARS);
    expect(extractProfile(generic, view(inside))?.fullName).toBe('Alice Liddell');
    const past = `<html><head><title>t</title></head><body>${filler(PROFILE_READ_CHARS + 10)}${meta}</body></html>`;
    expect(extractProfile(generic, view(past))?.fullName).toBe('t');
  });

  it('reads past what a hostile answer holds: a JSON-LD array of thousands, JSON nested too deep to write back', () => {
    const many = `<script type="application/ld+json">[${'1,'.repeat(100_000)}{"@type":"Person","name":"Late"}]</script>`;
    const first = `<script type="application/ld+json">[{"@type":"Person","name":"Early"},${'1,'.repeat(100_000)}1]</script>`;
    // A bounded number of nodes is looked at per script: one past them is not found.
    expect(extractProfile(generic, view(many))).toBeUndefined();
    expect(extractProfile(generic, view(first))?.fullName).toBe('Early');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const regex = platformWith({ bio: { regex: 'bio (?<value>\\w+)' } });
    expect(extractProfile(regex, view(deep, 'application/json'))).toBeUndefined();
  });

  it('answers nothing for an empty or detail-less answer', () => {
    expect(extractProfile(generic, view(''))).toBeUndefined();
    expect(extractProfile(generic, view('{"ok":true}', 'application/json'))).toBeUndefined();
  });

  it('refuses a rule that cannot work, at load time', () => {
    expect(() => platformWith({ bio: { regex: 'no group' } })).toThrow(/named group `value`/);
    expect(() => platformWith({ bio: { json: 'a..b' } })).toThrow(/empty segment/);
    expect(() => platformWith({ nickname: { json: 'a' } })).toThrow();
  });
});

describe('cleaning', () => {
  it('text, URLs and counts', () => {
    expect(cleanText('  a\u0000b \u202e c\n\nd ', 100)).toBe('a b c d');
    expect(cleanText('abcdef', 4)).toBe('abc…');
    expect(cleanText({}, 10)).toBeUndefined();
    expect(cleanUrl('//cdn.test/a.png', 'https://site.test/')).toBe('https://cdn.test/a.png');
    expect(cleanUrl('JaVaScRiPt:alert(1)', 'https://site.test/')).toBeUndefined();
    expect(cleanCount('12,345')).toBe(12345);
    expect(cleanCount('3M')).toBe(3_000_000);
    expect(cleanCount('many')).toBeUndefined();
    expect(cleanCount(-1)).toBeUndefined();
  });
});
