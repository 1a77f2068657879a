/**
 * Which webhook URLs are accepted: http or https, no credentials, and unless
 * allowed (USERSCOUT_WEBHOOK_ALLOW_PRIVATE) no private, loopback or link-local
 * destination, checked on every address the host name resolves to (when the
 * watchlist is saved, and again before each attempt).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../engine/private-address.js';

/** What is wrong with the URL's form, or undefined. Pure. */
export function webhookUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhookUrl must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'webhookUrl must be an http:// or https:// URL';
  if (url.username || url.password) return 'webhookUrl must not carry credentials';
  return undefined;
}

export type Resolve = (host: string) => Promise<readonly string[]>;

export const resolveAll: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Why the URL's destination is refused, or undefined when it may be called.
 * A name that does not resolve is not refused here: the attempt will fail and be retried.
 */
export async function refusedDestination(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolve = resolveAll,
): Promise<string | undefined> {
  const problem = webhookUrlProblem(raw);
  if (problem) return problem;
  if (allowPrivate) return undefined;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return undefined;
  }
  const bad = addresses.find(isPrivateAddress);
  return bad === undefined
    ? undefined
    : `webhookUrl points to a private or loopback address (${bad}); refused unless USERSCOUT_WEBHOOK_ALLOW_PRIVATE is set`;
}
