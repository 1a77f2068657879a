import { describe, expect, it } from 'vitest';
import { RETRY_ON } from '../../config.js';
import {
  BROWSER_NET_ERROR_CODE,
  BROWSER_PAGE_ERROR_CODE,
  browserErrorCode,
  isTunnelRefusal,
} from './browser-error.js';
import { handshakeRefused, transportErrorReason } from './transport-error.js';

const failure = (message: string) => Object.assign(new Error(message), { code: browserErrorCode(message) });

describe("a browser check's failure, read as the http path's", () => {
  it('reads network errors as their Node codes and reasons', () => {
    const cases: [string, string, string][] = [
      ['page.goto: net::ERR_CONNECTION_REFUSED at https://a.test/u/x', 'ECONNREFUSED', 'connection'],
      ['page.goto: net::ERR_NAME_NOT_RESOLVED at https://a.test/', 'ENOTFOUND', 'dns'],
      ['page.goto: net::ERR_CONNECTION_RESET at https://a.test/', BROWSER_NET_ERROR_CODE, 'connection'],
      ['page.goto: net::ERR_TOO_MANY_REDIRECTS at https://a.test/', BROWSER_NET_ERROR_CODE, 'connection'],
      ['page.goto: net::ERR_CONNECTION_TIMED_OUT at https://a.test/', 'ETIMEDOUT', 'timeout'],
      [
        'page.goto: net::ERR_CERT_AUTHORITY_INVALID at https://a.test/',
        'ERR_TLS_CERT_AUTHORITY_INVALID',
        'tls',
      ],
      ['page.goto: net::ERR_SSL_PROTOCOL_ERROR at https://a.test/', 'ERR_SSL_PROTOCOL_ERROR', 'tls'],
      ['page.goto: net::ERR_TUNNEL_CONNECTION_FAILED at https://a.test/', 'ECONNREFUSED', 'connection'],
    ];
    for (const [message, code, reason] of cases) {
      expect(browserErrorCode(message)).toBe(code);
      expect(transportErrorReason(failure(message))).toBe(reason);
    }
  });

  it('retries no browser failure: a reset or a closed connection is not retried as the http path retries it', () => {
    for (const name of ['ERR_CONNECTION_RESET', 'ERR_CONNECTION_CLOSED', 'ERR_EMPTY_RESPONSE', 'ERR_ABORTED'])
      expect(RETRY_ON.transportErrors).not.toContain(
        browserErrorCode(`page.goto: net::${name} at https://a.test/`),
      );
  });

  it('asks the egress gateway only about a refused tunnel, which Chromium names alike whatever the cause', () => {
    expect(isTunnelRefusal('page.goto: net::ERR_TUNNEL_CONNECTION_FAILED at https://a.test/')).toBe(true);
    expect(isTunnelRefusal('page.goto: net::ERR_CERT_AUTHORITY_INVALID at https://a.test/')).toBe(false);
    expect(isTunnelRefusal('page.content: Unable to retrieve content')).toBe(false);
  });

  it('never reads a certificate Chromium refused as the site refusing our handshake', () => {
    expect(handshakeRefused(failure('net::ERR_CERT_COMMON_NAME_INVALID'))).toBe(false);
  });

  it("gives a page's own failure a code of its own, not a refused connection", () => {
    const message =
      'page.content: Unable to retrieve content because the page is navigating and changing the content.';
    expect(browserErrorCode(message)).toBe(BROWSER_PAGE_ERROR_CODE);
    expect(transportErrorReason(failure(message))).toBe('connection');
  });
});
