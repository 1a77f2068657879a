/**
 * Chromium's network errors (`net::ERR_…` in Playwright's messages) as the codes
 * transport-error.ts reads, so a browser check's failure reads as the http path's would.
 * An error that names no network failure (the page's own, such as one read while it
 * navigated) gets a code of its own rather than passing for a refused connection. Pure.
 */

/** A browser failure that names no network error. */
export const BROWSER_PAGE_ERROR_CODE = 'EUSERSCOUT_BROWSER_PAGE';

const NET_CODES: Readonly<Record<string, string>> = {
  ERR_CONNECTION_REFUSED: 'ECONNREFUSED',
  // Every connection goes through the egress gateway, whose refusals Chromium reports alike.
  ERR_TUNNEL_CONNECTION_FAILED: 'ECONNREFUSED',
  ERR_PROXY_CONNECTION_FAILED: 'ECONNREFUSED',
  ERR_NAME_NOT_RESOLVED: 'ENOTFOUND',
  ERR_CONNECTION_RESET: 'ECONNRESET',
  ERR_CONNECTION_CLOSED: 'ECONNRESET',
  ERR_EMPTY_RESPONSE: 'ECONNRESET',
  ERR_TIMED_OUT: 'ETIMEDOUT',
  ERR_CONNECTION_TIMED_OUT: 'ETIMEDOUT',
};

/** The code for a browser failure's message. */
export function browserErrorCode(message: string): string {
  const name = /\bnet::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (name === undefined) return BROWSER_PAGE_ERROR_CODE;
  const known = NET_CODES[name];
  if (known) return known;
  // A certificate Chromium refused reads as one we refused; its other TLS failures as TLS.
  if (name.startsWith('ERR_CERT_')) return `ERR_TLS_CERT_${name.slice('ERR_CERT_'.length)}`;
  if (name.startsWith('ERR_SSL_')) return name;
  return 'ECONNREFUSED';
}
