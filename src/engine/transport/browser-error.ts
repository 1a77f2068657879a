/**
 * Chromium's network errors (`net::ERR_…` in Playwright's messages) as the codes
 * transport-error.ts reads, so a browser check's failure reads as the http path's would.
 * An error that names no network failure (the page's own, such as one read while it
 * navigated) gets a code of its own rather than passing for a refused connection. Pure.
 */

/** A browser failure that names no network error. */
export const BROWSER_PAGE_ERROR_CODE = 'EUSERSCOUT_BROWSER_PAGE';
/**
 * A network error with no Node code of the same meaning. Resets among them: the http path
 * retries a reset, but a browser retry costs a slot and the site's browser budget, and a
 * shield closing the handshake reads the same in Chromium.
 */
export const BROWSER_NET_ERROR_CODE = 'EUSERSCOUT_BROWSER_NET';

const NET_CODES: Readonly<Record<string, string>> = {
  ERR_CONNECTION_REFUSED: 'ECONNREFUSED',
  // Every connection goes through the egress gateway, whose refusals Chromium reports alike.
  ERR_TUNNEL_CONNECTION_FAILED: 'ECONNREFUSED',
  ERR_PROXY_CONNECTION_FAILED: 'ECONNREFUSED',
  ERR_NAME_NOT_RESOLVED: 'ENOTFOUND',
  ERR_NAME_RESOLUTION_FAILED: 'ENOTFOUND',
  ERR_TIMED_OUT: 'ETIMEDOUT',
  ERR_CONNECTION_TIMED_OUT: 'ETIMEDOUT',
};

/** Chromium's names of a refused tunnel: the egress gateway knows why it refused. */
export function isTunnelRefusal(message: string): boolean {
  return /\bnet::ERR_(?:TUNNEL|PROXY)_CONNECTION_FAILED\b/.test(message);
}

/** The code for a browser failure's message. */
export function browserErrorCode(message: string): string {
  const name = /\bnet::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (name === undefined) return BROWSER_PAGE_ERROR_CODE;
  const known = NET_CODES[name];
  if (known) return known;
  // A certificate Chromium refused reads as one we refused; its other TLS failures as TLS.
  const certificate = /^ERR_CERT(?:IFICATE)?_(.+)$/.exec(name)?.[1];
  if (certificate !== undefined) return `ERR_TLS_CERT_${certificate}`;
  if (name.startsWith('ERR_SSL_')) return name;
  return BROWSER_NET_ERROR_CODE;
}

/** Whether `error` says the browser closed under the check (a crash or a kill), not the site's answer. */
export function closedUnder(error: unknown): boolean {
  return (
    error instanceof Error && /\bbrowser (?:has been )?closed\b|browser has disconnected/i.test(error.message)
  );
}
