/**
 * How a simulated site defends itself against clients that are not browsers,
 * as the sites behind bot shields do: `handshake` refuses a TLS handshake that
 * does not look like a browser's (read from its ClientHello) with a block page,
 * `handshake-alert` with a TLS handshake_failure alert, ending it; `challenge`
 * answers a JavaScript challenge page until the client presents the cookie the
 * page's script computes from the page; `session` shows a login wall to a client
 * without the site's session cookie (an operator's login). Pure, apart from the
 * secret made at load.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { isGREASE, type TlsClientHelloMessage } from 'read-tls-client-hello';
import type { Platform } from '../catalogue/platform.js';
import type { Behaviour, SimRequest } from './behaviour.js';
import { hashSeed, seededRandom } from './random.js';

export type SimDefence = 'handshake' | 'handshake-alert' | 'challenge' | 'session';

/** ALPN (16); compress_certificate (27): sent by Chromium and Firefox, never by Node's OpenSSL 3.0; ALPS (17513, 17613): Chromium's alone. */
const ALPN = 16;
const COMPRESS_CERTIFICATE = 27;
const APPLICATION_SETTINGS = new Set([17513, 17613]);

/** The ALPN protocols a ClientHello offers. */
function alpnProtocols(hello: TlsClientHelloMessage): string[] {
  const ext = hello.extensions.find((e) => e.id === ALPN);
  const list = (ext?.data as { protocols?: unknown } | null | undefined)?.protocols;
  return Array.isArray(list) ? list.map((p) => (Buffer.isBuffer(p) ? p.toString('latin1') : String(p))) : [];
}

/**
 * A Chromium-like handshake, as a JA3/JA4-minded shield tells it: `h2` offered by ALPN,
 * certificate compression, and GREASE values or ALPS (application settings), which no
 * OpenSSL-based client (Node, curl, Python) sends. Impersonating clients that match
 * Chromium's extension set pass, as they do on the live web.
 */
export function looksLikeBrowser(hello: TlsClientHelloMessage | undefined): boolean {
  if (!hello) return false;
  const ids = hello.extensions.map((e) => e.id);
  if (!ids.includes(COMPRESS_CERTIFICATE)) return false;
  const greased = hello.cipherSuites.some(isGREASE) || ids.some(isGREASE);
  if (!greased && !ids.some((id) => APPLICATION_SETTINGS.has(id))) return false;
  return alpnProtocols(hello).includes('h2');
}

/** What a shield answers a handshake it refuses: Cloudflare's block page. */
export const HANDSHAKE_REFUSED: Behaviour = {
  kind: 'respond',
  status: 403,
  headers: { server: 'cloudflare', 'cf-ray': '8c1f0a0b0c0d0e10-AMS', 'content-type': 'text/html' },
  body: '<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body><div id="cf-error-details"><h1>Sorry, you have been blocked</h1><p>You are unable to access this site.</p></div></body></html>',
};

/** A fatal handshake_failure alert (a TLS record: alert, TLS 1.2, 2 bytes, fatal, 40): how a shield ends a ClientHello it refuses. */
export const HANDSHAKE_FAILURE_ALERT: Readonly<Uint8Array> = Uint8Array.of(
  0x15,
  0x03,
  0x03,
  0x00,
  0x02,
  0x02,
  0x28,
);

/** The site ends this handshake with an alert before any page: it refuses at the TLS layer, and the ClientHello is not a browser's. */
export function refusesHandshake(
  defence: SimDefence | undefined,
  hello: TlsClientHelloMessage | undefined,
): boolean {
  return defence === 'handshake-alert' && !looksLikeBrowser(hello);
}

export const CLEARANCE_COOKIE = 'cf_clearance';

/** Made once per process: a client cannot know the challenge's answer without running its page. */
const SECRET = randomBytes(16);

/** The nonce a site's challenge page carries. */
function nonceFor(host: string): string {
  return createHmac('sha256', SECRET).update(host).digest('hex').slice(0, 16);
}

/** What the page's script computes from the nonce it reads in the page; the server checks the same. */
export function challengeAnswer(nonce: string): string {
  let sum = 0;
  for (const c of nonce) sum = (sum * 31 + c.charCodeAt(0)) % 1_000_003;
  return `${[...nonce].reverse().join('')}.${sum}`;
}

function cookieValue(request: SimRequest, name: string): string | undefined {
  const raw = request.headers.cookie;
  const text = Array.isArray(raw) ? raw.join('; ') : (raw ?? '');
  for (const part of text.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** The request carries the clearance its site's challenge asks for. */
export function passesChallenge(request: SimRequest): boolean {
  return cookieValue(request, CLEARANCE_COOKIE) === challengeAnswer(nonceFor(request.host));
}

/**
 * How long a site's challenge works before it sets its cookie: live ones compute for a second
 * or more, some at once. A stable split by host, so tests, demo mode and the benchmark meet both.
 */
export function challengeWorkMs(host: string): number {
  const draw = seededRandom(hashSeed(`challenge:${host.toLowerCase()}`))();
  return draw < 0.5 ? 0 : 1_000 + Math.round((draw - 0.5) * 2_000);
}

/**
 * The challenge page, with the markers real ones carry (`cf-mitigated: challenge`, the
 * "Just a moment..." title): its script works for its site's time (`challengeWorkMs`), reads
 * the nonce from the DOM, sets the clearance cookie and reloads; the reload is answered by
 * the site itself.
 */
export function challengePage(request: SimRequest): Behaviour {
  const nonce = nonceFor(request.host);
  const script = `setTimeout(function(){var n=document.getElementById('challenge-form').getAttribute('data-nonce');var s=0;for(var i=0;i<n.length;i++){s=(s*31+n.charCodeAt(i))%1000003;}document.cookie='${CLEARANCE_COOKIE}='+n.split('').reverse().join('')+'.'+s+'; path=/';location.reload();},${challengeWorkMs(request.host)});`;
  return {
    kind: 'respond',
    status: 403,
    headers: {
      server: 'cloudflare',
      'cf-mitigated': 'challenge',
      'cache-control': 'no-store',
      'content-type': 'text/html; charset=utf-8',
    },
    body: `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-form" data-nonce="${nonce}">Checking your browser before accessing ${request.host}.</div><script>${script}</script></body></html>`,
  };
}

/** The cookie a site behind a login wall reads its session from. */
export const SESSION_COOKIE = 'sim_session';

/** The session value a site accepts: what an operator would copy from a logged-in browser. */
export function simSessionValue(host: string): string {
  return createHmac('sha256', SECRET).update(`session:${host.toLowerCase()}`).digest('base64url');
}

/** The request carries its site's session. */
export function hasSession(request: SimRequest): boolean {
  return cookieValue(request, SESSION_COOKIE) === simSessionValue(request.host);
}

/** What a site answers a visitor who is not logged in, whatever the page: one generic wall. */
export const LOGIN_WALL: Behaviour = {
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  body: '<!DOCTYPE html><html><head><title>Log in</title></head><body><form action="/login" method="post"><h1>Log in to continue</h1><input name="user"><input name="password" type="password"></form></body></html>',
};

/**
 * What a defended site answers instead of its page, or undefined when the request
 * gets through. `browserHello`: the connection's handshake looked like a browser's.
 */
export function defend(
  defence: SimDefence,
  request: SimRequest,
  browserHello: boolean,
): Behaviour | undefined {
  // A handshake refused with an alert never gets here over TLS: over plain HTTP, the block page.
  if (defence === 'handshake' || defence === 'handshake-alert')
    return browserHello ? undefined : HANDSHAKE_REFUSED;
  if (defence === 'session') return hasSession(request) ? undefined : LOGIN_WALL;
  return passesChallenge(request) ? undefined : challengePage(request);
}

/**
 * How the simulated web defends a platform's site: behind a login wall when its entry
 * needs a session, else as the transport its entry names says the live site does (a
 * handshake check for `impersonate`, a challenge for `browser`).
 */
export function defenceOf(platform: Pick<Platform, 'id' | 'transport' | 'session'>): SimDefence | undefined {
  if (platform.session === 'required') return 'session';
  return platform.transport === 'impersonate'
    ? handshakeForm(platform.id)
    : platform.transport === 'browser'
      ? 'challenge'
      : undefined;
}

/**
 * How a handshake check refuses, as live shields do one or the other: a block page, or an
 * alert. A stable split by the platform's id, so tests, demo mode and the benchmark meet both.
 */
function handshakeForm(id: string): 'handshake' | 'handshake-alert' {
  return seededRandom(hashSeed(`handshake:${id}`))() < 0.5 ? 'handshake-alert' : 'handshake';
}
