/**
 * What a simulated platform does with one request. Plain data, so tests and the
 * benchmark can script any platform without writing server code.
 */
import type { SimDefence } from './defence.js';
import type { LimitAnswer } from './site-limits.js';

export type WafVendor = 'cloudflare' | 'akamai' | 'ddos-guard' | 'perimeterx' | 'aws-waf' | 'imperva';

export type Behaviour =
  /**
   * A normal answer, after `delayMs`. `encoding` compresses the body. A body in
   * bytes is sent as it is (UTF-8 text encoded once, for answers served often).
   */
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string | Uint8Array;
      readonly delayMs?: number;
      readonly encoding?: 'gzip' | 'br' | 'deflate';
    }
  /** Accepts the request and never answers. */
  | { readonly kind: 'hang' }
  /** Closes the connection abruptly, after `delayMs`. */
  | { readonly kind: 'reset'; readonly delayMs?: number }
  /** Sends the body in small pieces, `intervalMs` apart. */
  | {
      readonly kind: 'drip';
      readonly status: number;
      readonly body: string;
      readonly chunkBytes: number;
      readonly intervalMs: number;
    }
  /** A body of `bytes` bytes of filler, with `marker` placed at the start or the end. */
  | {
      readonly kind: 'huge';
      readonly status: number;
      readonly bytes: number;
      readonly marker?: string;
      readonly markerAt?: 'start' | 'end';
    }
  /** 429 with Retry-After for the first `times` requests of this path, then `after`. */
  | {
      readonly kind: 'rate-limit';
      readonly times: number;
      readonly retryAfter?: string;
      readonly after: Behaviour;
    }
  /** A bot shield's challenge page. */
  | { readonly kind: 'waf'; readonly vendor: WafVendor };

export interface SimRequest {
  readonly method: string;
  readonly host: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  readonly tls: boolean;
  /** The client's address, as the site sees it (the socket's remote address). */
  readonly remoteAddress: string;
}

/** Answers one host (exact name or pattern). Returns undefined to let the next route try. */
export interface SimRoute {
  readonly host: string | RegExp;
  readonly handle: (request: SimRequest) => Behaviour | undefined;
  /**
   * The site's rate limit: at most `perSecond` requests a second (and at once) from
   * one client address to the site `key`; beyond it, 429 with Retry-After.
   */
  readonly limit?:
    | {
        readonly key: string;
        readonly perSecond: number;
        /** How its 429 tells of the limit (site-limits.ts). @default 'retry-after' */
        readonly answer?: LimitAnswer;
      }
    | undefined;
  /** How the site defends itself against clients that are not browsers (defence.ts); absent: it does not. */
  readonly defence?: SimDefence | undefined;
}

/** Challenge pages as the shields serve them (status, headers, body). */
export function wafResponse(
  vendor: WafVendor,
): Extract<Behaviour, { kind: 'respond' }> & { readonly body: string } {
  switch (vendor) {
    case 'cloudflare':
      return {
        kind: 'respond',
        status: 403,
        headers: { server: 'cloudflare', 'cf-ray': '8c1f0a0b0c0d0e0f-AMS', 'content-type': 'text/html' },
        body: '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={cvId:"3"};</script><div id="challenge-body-text">Checking your browser before accessing the site.</div></body></html>',
      };
    case 'akamai':
      return {
        kind: 'respond',
        status: 403,
        headers: { server: 'AkamaiGHost', 'content-type': 'text/html' },
        body: "<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>You don't have permission to access this server.<P>Reference&#32;&#35;18&#46;5c2a1402&#46;1700000000&#46;1a2b3c4d<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;5c2a1402</BODY></HTML>",
      };
    case 'ddos-guard':
      return {
        kind: 'respond',
        status: 403,
        headers: { server: 'ddos-guard', 'content-type': 'text/html' },
        body: '<!DOCTYPE html><html><head><title>DDoS-Guard</title></head><body><script src="https://check.ddos-guard.net/check.js"></script></body></html>',
      };
    case 'perimeterx':
      return {
        kind: 'respond',
        status: 403,
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>Access to this page has been denied.</title></head><body><div id="px-captcha"></div><script>window._pxAppId="PXabc123";</script><p>Press &amp; Hold to confirm you are a human (and not a bot).</p></body></html>',
      };
    case 'aws-waf':
      return {
        kind: 'respond',
        status: 202,
        headers: { 'x-amzn-waf-action': 'challenge', 'content-type': 'text/html' },
        body: '<html><head><script src="https://example.token.awswaf.com/challenge.js"></script></head><body><script>AwsWafIntegration.checkForceRefresh()</script></body></html>',
      };
    case 'imperva':
      return {
        kind: 'respond',
        status: 200,
        headers: { 'x-iinfo': '12-345678-0 0NNN RT(1700000000000 0)', 'content-type': 'text/html' },
        body: '<html><head><META NAME="robots" CONTENT="noindex,nofollow"><script src="/_Incapsula_Resource?SWJIYLWA=5074a744e2e3d891814e9a2dace20bd4"></script></head><body><iframe>Request unsuccessful. Incapsula incident ID: 123000456789</iframe></body></html>',
      };
  }
}
