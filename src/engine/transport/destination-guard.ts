/**
 * Refusal of private and loopback destinations, for every route a check may take.
 * Each request (the first URL and every redirect hop) passes one interceptor that
 * maps its host through `--connect-to` and refuses a private address; a name is
 * resolved where the connection is opened: by the direct connector's own lookup
 * (so what is checked is what is connected to), or, on a proxied route whose
 * connection the proxy opens, by the interceptor before the request is handed over.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { type ConnectToRule, resolveConnectTo } from './connect-to.js';
import { isPrivateAddress } from './private-address.js';
import { BLOCKED_DESTINATION_CODE } from './transport-error.js';

export type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export type Lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

export function blockedDestination(address: string): NodeJS.ErrnoException {
  return Object.assign(
    new Error(`destination ${address} is a private or loopback address, which are refused`),
    { code: BLOCKED_DESTINATION_CODE },
  );
}

/** dns.lookup that refuses private answers, so what is checked is what is connected to. */
export function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(blockedDestination(bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

export interface DestinationGuardOptions {
  readonly connectTo: readonly ConnectToRule[];
  /**
   * Resolve names here too: a proxied route, whose connection is opened by the proxy.
   * A direct route leaves names to its connector's `guardedLookup`, which resolves once.
   */
  readonly resolveNames: boolean;
  /** @default guardedLookup */
  readonly lookup?: Lookup | undefined;
}

/** An undici interceptor that refuses a request whose destination is private, before it is sent. */
export function destinationGuard(options: DestinationGuardOptions): Dispatcher.DispatcherComposeInterceptor {
  const lookup = options.lookup ?? guardedLookup;
  return (dispatch) => (opts, handler) => {
    const origin = new URL(String(opts.origin));
    const defaultPort = origin.protocol === 'https:' ? 443 : 80;
    const target = resolveConnectTo(options.connectTo, origin.hostname, Number(origin.port) || defaultPort);
    const refuse = (error: Error): boolean => {
      handler.onResponseError?.(null as never, error);
      return true;
    };
    if (isIP(target.host)) {
      return isPrivateAddress(target.host)
        ? refuse(blockedDestination(target.host))
        : dispatch(opts, handler);
    }
    if (!options.resolveNames) return dispatch(opts, handler);
    lookup(target.host, { all: true }, (error) => {
      if (error) refuse(error);
      else dispatch(opts, handler);
    });
    return true;
  };
}
