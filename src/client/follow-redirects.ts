/**
 * Redirects followed by the client rather than by fetch, which drops only
 * `Authorization` when a redirect leaves the origin: the API key (`x-api-key`)
 * must not go to another origin either, whatever sends the client there.
 */

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** As many as fetch follows by itself. */
const MAX_REDIRECTS = 20;

/** Headers that carry the caller's credentials: sent only to the origin they were given for. */
const CREDENTIALS = ['x-api-key', 'authorization', 'cookie'];

export interface FollowedRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  readonly signal: AbortSignal;
}

/** `fetch` of `url`, its redirects followed, credentials dropped once one leads to another origin. */
export async function fetchFollowingRedirects(
  fetchFn: typeof fetch,
  url: URL,
  request: FollowedRequest,
): Promise<Response> {
  let current = url;
  let { method, headers, body } = request;
  for (let hop = 0; ; hop++) {
    const response = await fetchFn(current, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: 'manual',
      signal: request.signal,
    });
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
    if (location === null || hop >= MAX_REDIRECTS) return response;
    const next = new URL(location, current);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') return response;
    await response.body?.cancel();
    if (next.origin !== current.origin) headers = without(headers, CREDENTIALS);
    // As fetch does: 303, and 301/302 after a POST, go on as a GET without the body.
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      headers = without(headers, ['content-type']);
    }
    current = next;
  }
}

function without(
  headers: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}
