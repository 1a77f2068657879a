/**
 * Which webhook URLs are accepted: http or https, no credentials, and unless
 * allowed (USERSCOUT_WEBHOOK_ALLOW_PRIVATE) no private, loopback or link-local
 * destination, checked on every address the host name resolves to (when the
 * watchlist is saved, and once per attempt, which then connects to the
 * addresses checked: src/watchlists/send-webhook.ts).
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../engine/transport/private-address.js';

/** What is wrong with the URL's form, or undefined. Pure. */
function webhookUrlProblem(raw: string): string | undefined {
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
 * Where the URL may be called: refused (and why), on these addresses (every
 * one the name resolved to, all public), or on any (private destinations
 * allowed: nothing is resolved). Throws what `resolve` throws.
 */
export async function checkDestination(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolve = resolveAll,
): Promise<{ readonly refused: string } | { readonly addresses: readonly string[] | 'any' }> {
  const problem = webhookUrlProblem(raw);
  if (problem) return { refused: problem };
  if (allowPrivate) return { addresses: 'any' };
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolve(host);
  const bad = addresses.find(isPrivateAddress);
  return bad === undefined
    ? { addresses }
    : {
        refused: `webhookUrl points to a private or loopback address (${bad}); refused unless USERSCOUT_WEBHOOK_ALLOW_PRIVATE is set`,
      };
}

/**
 * Why the URL's destination is refused, or undefined when it may be called.
 * A name that does not resolve is not refused here: the attempt will fail and be retried.
 */
export async function refusedDestination(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolve = resolveAll,
): Promise<string | undefined> {
  try {
    const checked = await checkDestination(raw, allowPrivate, resolve);
    return 'refused' in checked ? checked.refused : undefined;
  } catch {
    return undefined;
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A dns.lookup for the connection (undici's `connect.lookup`) that answers the
 * addresses already checked, whatever it is asked: the name is not resolved a
 * second time, so what was checked is what is connected to.
 */
export function pinnedLookup(
  addresses: readonly string[],
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  const all = addresses.map((address) => ({ address, family: isIP(address) }));
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
    const first = usable[0];
    if (!first)
      return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}
