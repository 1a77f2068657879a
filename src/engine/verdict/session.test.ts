import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { loadCatalogue } from '../../catalogue/loader.js';
import type { Platform } from '../../catalogue/platform.js';
import type { PlatformSpec } from '../../catalogue/schema.js';
import { UserscoutError } from '../../errors.js';
import { buildRequest } from './request.js';
import { REDACTED, Session, Sessions } from './session.js';

const SECRET = 'zq-SECRET-7f3a9c';

function platforms(...specs: PlatformSpec[]): readonly Platform[] {
  return catalogueOf(specs, false).platforms;
}

const FILE = 'sessionsFile (USERSCOUT_SESSIONS_FILE) /etc/sessions.json';
const INLINE = 'sessions (USERSCOUT_SESSIONS)';

function parse(data: unknown, setting = INLINE): Sessions {
  return Sessions.parse([{ setting, text: typeof data === 'string' ? data : JSON.stringify(data) }]);
}

/** The error parse throws, checked to name the setting and never show the secret. */
function refusal(data: unknown, setting = INLINE): UserscoutError {
  try {
    parse(data, setting);
  } catch (error) {
    expect(error).toBeInstanceOf(UserscoutError);
    const e = error as UserscoutError;
    expect(e.code).toBe('invalid_config');
    expect(e.message).toContain(setting);
    expect(`${e.message} ${JSON.stringify(e.details)} ${e.stack}`).not.toContain(SECRET);
    return e;
  }
  throw new Error('parse accepted it');
}

describe('Session', () => {
  const session = new Session('https://Site.test', [['sid', SECRET]], [['X-Token', SECRET]]);

  it('adds its cookies and headers to a request to its own host only', () => {
    const base = { 'User-Agent': 'ua', Cookie: 'consent=yes', 'x-token': 'theirs' };
    expect(session.addTo('https://site.test/u/alice', base)).toEqual({
      'User-Agent': 'ua',
      cookie: `consent=yes; sid=${SECRET}`,
      'X-Token': SECRET,
    });
    for (const url of [
      'https://other.test/u/alice',
      'https://sub.site.test/',
      'https://site.test.evil.test/',
      'http://site.test/u/alice',
      'not a url',
    ]) {
      expect(session.addTo(url, base)).toBe(base);
    }
    // Its own scheme and port only: never in clear text on a redirect to http, nor to another port.
    expect(session.covers('https://SITE.test:443/x?y')).toBe(true);
    expect(session.covers('http://site.test/u/alice')).toBe(false);
    expect(session.covers('https://site.test:8443/u/alice')).toBe(false);
  });

  it('never serialises its values', () => {
    const holder = { session, nested: [session] };
    const texts = [
      JSON.stringify(holder),
      inspect(holder, { depth: 10, showHidden: true }),
      String(session),
      `${session}`,
    ];
    for (const text of texts) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain(REDACTED);
    }
    expect(Object.keys(session)).toEqual([]);
    expect(Object.isFrozen(session)).toBe(true);
  });

  it('gives a browser host-only cookies', () => {
    expect(session.browserCookies()).toEqual([
      { name: 'sid', value: SECRET, url: 'https://site.test/', secure: true },
    ]);
  });
});

describe('Sessions.parse', () => {
  it('binds each platform its session, on its check host', () => {
    const [alpha, bravo, charlie] = platforms(
      entry('Alpha'),
      entry('Bravo', { check: { url: 'https://api.bravo.test/users/{username}' } }),
      entry('Charlie'),
    );
    const sessions = Sessions.parse([
      { setting: FILE, text: JSON.stringify({ Alpha: { cookies: { sid: SECRET } } }) },
      {
        setting: INLINE,
        text: JSON.stringify({ Bravo: { headers: { Authorization: `Bearer ${SECRET}` } } }),
      },
    ]);
    expect(sessions.platforms).toEqual(['Alpha', 'Bravo']);
    expect(sessions.for(alpha!)?.host).toBe('alpha.test');
    expect(sessions.for(bravo!)?.host).toBe('api.bravo.test');
    expect(sessions.for(charlie!)).toBeUndefined();
    expect(JSON.stringify(sessions)).toBe(JSON.stringify(REDACTED));
    expect(inspect(sessions)).not.toContain(SECRET);
    sessions.assertSendable([alpha!, bravo!, charlie!]);
  });

  it('gives a request its session as data, for the transports to add', () => {
    const [alpha] = platforms(entry('Alpha'));
    const session = parse({ Alpha: { cookies: { sid: SECRET } } }).for(alpha!);
    const built = buildRequest(alpha!, 'alice', { 'User-Agent': 'ua' }, session);
    if (!built.ok) throw new Error(built.message);
    expect(built.request.headers).toEqual({ 'User-Agent': 'ua' });
    expect(built.request.session).toBe(session);
    expect(JSON.stringify(built.request)).not.toContain(SECRET);
  });

  it('refuses bad input, naming the setting and the platform, never a value', () => {
    expect(refusal(`{"Alpha": {"cookies": {"sid": "${SECRET}"}`).message).toMatch(/is not valid JSON/);
    expect(refusal([SECRET]).message).toMatch(/must be a JSON object/);
    expect(refusal({ Alpha: SECRET }).message).toMatch(/platform "Alpha" must be an object/);
    expect(refusal({ Alpha: { cookie: { sid: SECRET } } }).message).toMatch(/platform "Alpha" has "cookie"/);
    expect(refusal({ Alpha: {} }).message).toMatch(/gives no cookie and no header/);
    expect(refusal({ Alpha: { cookies: { sid: `${SECRET}; other=1` } } }).message).toMatch(
      /platform "Alpha": cookies "sid" has a value/,
    );
    expect(refusal({ Alpha: { cookies: { 'bad name': SECRET } } }).message).toMatch(
      /not a valid cookie name/,
    );
    expect(refusal({ Alpha: { cookies: { sid: 7 } } }).message).toMatch(/must have a text value/);
    expect(refusal({ Alpha: { headers: { 'X-T': `${SECRET}\r\nX-Evil: 1` } } }).message).toMatch(
      /line break/,
    );
    expect(refusal({ Alpha: { headers: { Host: SECRET } } }).message).toMatch(/set by the connection/);
    expect(refusal({ Alpha: { headers: { Cookie: SECRET } } }, FILE).message).toMatch(
      /give cookies as cookies/,
    );
  });

  it('refuses a platform named by both settings', () => {
    expect(() =>
      Sessions.parse([
        { setting: FILE, text: JSON.stringify({ Alpha: { cookies: { sid: SECRET } } }) },
        { setting: INLINE, text: JSON.stringify({ Alpha: { cookies: { sid: SECRET } } }) },
      ]),
    ).toThrow(/sessions \(USERSCOUT_SESSIONS\): platform "Alpha" is given a session by sessionsFile too/);
  });

  it('refuses sessions the catalogue cannot send to one host', () => {
    const catalogue = platforms(
      entry('Alpha'),
      entry('Hosted', { profile: 'https://{username}.hosted.test/' }),
      entry('Paged', { transport: 'browser' }),
    );
    const sendable = (data: unknown) => () => parse(data).assertSendable(catalogue);
    expect(sendable({ Nowhere: { cookies: { sid: SECRET } } })).toThrow(
      /platform "Nowhere" is not in the catalogue/,
    );
    expect(sendable({ Hosted: { cookies: { sid: SECRET } } })).toThrow(/holds the username/);
    expect(sendable({ Paged: { headers: { 'X-Token': SECRET } } })).toThrow(/goes by browser/);
    expect(sendable({ Paged: { cookies: { sid: SECRET } } })).not.toThrow();
  });

  it('is none when nothing is given', () => {
    expect(Sessions.parse([])).toBe(Sessions.none);
    expect(Sessions.parse([{ setting: INLINE, text: '{}' }]).size).toBe(0);
  });
});

describe('catalogue `session`', () => {
  it('defaults to optional, and required needs one check host', () => {
    const [plain, needing] = platforms(entry('Alpha'), entry('Bravo', { session: 'required' }));
    expect(plain!.session).toBe('optional');
    expect(needing!.session).toBe('required');
    const { problems } = loadCatalogue({
      platforms: [entry('Hosted', { profile: 'https://{username}.hosted.test/', session: 'required' })],
    });
    expect(problems).toEqual([expect.objectContaining({ field: '/session' })]);
    const bad = loadCatalogue({ platforms: [{ ...entry('Odd'), session: 'sometimes' }] });
    expect(bad.problems.length).toBeGreaterThan(0);
  });
});
