/**
 * The parts of undici the engine uses, each required from its own file instead
 * of undici's index. The index loads all of undici (fetch, WebSocket,
 * EventSource, the cache and mock agents, ...): about twice the memory of these
 * parts before the first request, which counts in the command line's one-search
 * memory. The files are the ones the
 * index itself requires, so a process that also loads the index (the service's
 * webhooks) shares the same classes. undici's package declares no `exports`, so
 * its files can be required by path; the paths are checked by
 * undici-parts.test.ts against the index on every upgrade.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

// The index gives every dispatcher its request(), stream(), pipeline(), connect() and
// upgrade() methods (0.1 MB); so do these parts, so their dispatchers are undici's whole.
const dispatcherClass: typeof Undici.Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
Object.assign(dispatcherClass.prototype, require('undici/lib/api/index.js'));

export const Agent: typeof Undici.Agent = require('undici/lib/dispatcher/agent.js');
export const Pool: typeof Undici.Pool = require('undici/lib/dispatcher/pool.js');
export const Client: typeof Undici.Client = require('undici/lib/dispatcher/client.js');
export const buildConnector: typeof Undici.buildConnector = require('undici/lib/core/connect.js');
export const decompressInterceptor: typeof Undici.interceptors.decompress = require('undici/lib/interceptor/decompress.js');

/** The proxy agents, loaded only when a proxy is asked for. */
export function proxyAgents(): {
  ProxyAgent: typeof Undici.ProxyAgent;
  Socks5ProxyAgent: typeof Undici.Socks5ProxyAgent;
} {
  return {
    ProxyAgent: require('undici/lib/dispatcher/proxy-agent.js'),
    Socks5ProxyAgent: require('undici/lib/dispatcher/socks5-proxy-agent.js'),
  };
}
