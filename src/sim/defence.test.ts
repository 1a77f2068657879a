import type { TlsClientHelloMessage } from 'read-tls-client-hello';
import { describe, expect, it } from 'vitest';
import type { SimRequest } from './behaviour.js';
import {
  CLEARANCE_COOKIE,
  challengeAnswer,
  challengePage,
  challengeWorkMs,
  defenceOf,
  defend,
  HANDSHAKE_FAILURE_ALERT,
  HANDSHAKE_REFUSED,
  LOGIN_WALL,
  looksLikeBrowser,
  refusesHandshake,
  SESSION_COOKIE,
  simSessionValue,
} from './defence.js';

function hello(cipherSuites: number[], extensions: number[], alpn: string[]): TlsClientHelloMessage {
  return {
    version: 0x0303,
    random: Buffer.alloc(32),
    sessionId: Buffer.alloc(0),
    cipherSuites,
    compressionMethods: [0],
    extensions: extensions.map((id) => ({ id, data: id === 16 ? { protocols: alpn } : null })),
  };
}

/** Node 20's (OpenSSL 3.0) hello as undici makes it: no GREASE, no certificate compression. */
const NODE = hello([4866, 4867, 4865, 49196], [0, 11, 10, 35, 22, 23, 13, 43, 45, 51, 16], ['http/1.1']);
/** Chromium's: GREASE first among suites and extensions, ALPS, certificate compression, h2. */
const CHROME = hello(
  [0x2a2a, 4865, 4866, 4867, 49195],
  [0x1a1a, 0, 23, 65281, 10, 11, 35, 16, 5, 13, 18, 51, 45, 43, 27, 17513, 0x4a4a],
  ['h2', 'http/1.1'],
);

const request = (cookie?: string): SimRequest => ({
  method: 'GET',
  host: 'challenged.test',
  path: '/u/alice',
  headers: cookie ? { cookie } : {},
  body: '',
  tls: true,
  remoteAddress: '127.0.0.1',
});

describe('sim defences', () => {
  it("tells a browser's handshake from Node's", () => {
    expect(looksLikeBrowser(CHROME)).toBe(true);
    expect(looksLikeBrowser(NODE)).toBe(false);
    expect(looksLikeBrowser(undefined)).toBe(false);
    // Node offering h2 is still not a browser: no certificate compression.
    expect(looksLikeBrowser(hello(NODE.cipherSuites, [...NODE.extensions.map((e) => e.id)], ['h2']))).toBe(
      false,
    );
  });

  it('answers the challenge until the cookie its script computes from the page is sent', () => {
    const page = challengePage(request());
    expect(page).toMatchObject({ status: 403, headers: { 'cf-mitigated': 'challenge' } });
    const body = (page as { body: string }).body;
    expect(body).toContain('<title>Just a moment...</title>');
    const nonce = /data-nonce="([0-9a-f]+)"/.exec(body)?.[1] ?? '';
    expect(defend('challenge', request(`${CLEARANCE_COOKIE}=wrong`), true)).toEqual(page);
    expect(
      defend('challenge', request(`a=b; ${CLEARANCE_COOKIE}=${challengeAnswer(nonce)}`), false),
    ).toBeUndefined();
  });

  it('gives some challenges a second or more of work before they reload and some none, the same each time', () => {
    const hosts = Array.from({ length: 200 }, (_, i) => `site-${i}.test`);
    const work = hosts.map(challengeWorkMs);
    expect(work.filter((ms) => ms === 0).length).toBeGreaterThan(60);
    expect(work.filter((ms) => ms >= 1_000 && ms <= 2_000).length).toBeGreaterThan(60);
    expect(work.every((ms) => ms === 0 || (ms >= 1_000 && ms <= 2_000))).toBe(true);
    expect(hosts.map(challengeWorkMs)).toEqual(work);
    // The page's script waits its site's time before it computes the cookie.
    const ms = challengeWorkMs('challenged.test');
    expect((challengePage(request()) as { body: string }).body).toContain(`},${ms});`);
  });

  it("shows the login wall until its own host's session cookie is sent", () => {
    const own = simSessionValue('challenged.test');
    expect(defend('session', request(), false)).toBe(LOGIN_WALL);
    expect(defend('session', request(`${SESSION_COOKIE}=${simSessionValue('other.test')}`), false)).toBe(
      LOGIN_WALL,
    );
    expect(defend('session', request(`a=b; ${SESSION_COOKIE}=${own}`), false)).toBeUndefined();
    expect(defenceOf({ id: 'a', transport: 'browser', session: 'required' })).toBe('session');
  });

  it('refuses a handshake not made by a browser with a block page, or with an alert, by a stable split', () => {
    const forms = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const platform = { id: `site-${i}`, transport: 'impersonate', session: 'optional' } as const;
      const form = defenceOf(platform) ?? 'none';
      expect(defenceOf(platform), platform.id).toBe(form);
      forms.set(form, (forms.get(form) ?? 0) + 1);
    }
    expect([...forms.keys()].sort()).toEqual(['handshake', 'handshake-alert']);
    expect(Math.min(...forms.values())).toBeGreaterThan(8);
    // The alert ends only a handshake that is not a browser's; over plain HTTP, the block page.
    expect(refusesHandshake('handshake-alert', NODE)).toBe(true);
    expect(refusesHandshake('handshake-alert', undefined)).toBe(true);
    expect(refusesHandshake('handshake-alert', CHROME)).toBe(false);
    expect(refusesHandshake('handshake', NODE)).toBe(false);
    expect(defend('handshake-alert', { ...request(), tls: false }, false)).toBe(HANDSHAKE_REFUSED);
    expect(defend('handshake-alert', request(), true)).toBeUndefined();
    expect(Buffer.from(HANDSHAKE_FAILURE_ALERT).toString('hex')).toBe('15030300020228');
  });
});
