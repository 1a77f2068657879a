/**
 * How a followed redirect leads on: the one rule every transport that follows hops
 * itself applies (http.ts; impersonate with a session). Pure.
 */

/** Statuses whose Location is followed. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface Hop<M extends string> {
  readonly url: string;
  readonly method: M | 'GET';
  readonly body: string | undefined;
}

/**
 * The request a redirect leads to, or undefined when it leads to another scheme than
 * http(s). A 303, and a 301 or 302 answering a POST, turn it into a GET without a body.
 */
export function redirectHop<M extends string>(
  status: number,
  location: string,
  from: string,
  method: M,
  body: string | undefined,
): Hop<M> | undefined {
  const next = new URL(location, from);
  if (next.protocol !== 'http:' && next.protocol !== 'https:') return undefined;
  const toGet = status === 303 || ((status === 301 || status === 302) && method === 'POST');
  return toGet ? { url: next.href, method: 'GET', body: undefined } : { url: next.href, method, body };
}
