/**
 * Builds the undici dispatcher of one egress identity, which its checks go
 * through: keep-alive pools, decompression, and the network options (source
 * address, proxy, SOCKS5, connect-to, extra CA, insecure TLS, HTTP/2) as wrappers
 * around one connector, and the refusal of private destinations (destination-guard.ts).
 */
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates, TLSSocket } from 'node:tls';
import type { Dispatcher, buildConnector as UndiciConnector } from 'undici';
import { UserscoutError } from '../../errors.js';
import { IDLE_GRACE_MS, MAX_TLS_SESSIONS } from '../../tuning.js';
import { ConnectGate } from './connect-gate.js';
import { type ConnectToRule, resolveConnectTo } from './connect-to.js';
import { destinationGuard, guardedLookup } from './destination-guard.js';
import { leanPools } from './lean-pool.js';
import { TlsSessionKeeper } from './tls-sessions.js';
import { Agent, buildConnector, decompressInterceptor, proxyAgents } from './undici-parts.js';

export interface DispatcherOptions {
  /** http://, https:// or socks5:// proxy URL. */
  readonly proxy?: string | undefined;
  readonly connectTo: readonly ConnectToRule[];
  /** Extra trusted CA certificates (PEM text), added to Node's defaults. */
  readonly ca: readonly string[];
  readonly insecure: boolean;
  readonly refusePrivate: boolean;
  readonly connectTimeoutMs: number;
  /** Connections kept per origin. */
  readonly connectionsPerOrigin: number;
  /** How long an idle kept connection stays open when the site gives no keep-alive hint (ms). */
  readonly keepAliveTimeoutMs: number;
  /** The most a site's keep-alive hint keeps an idle connection open (ms); absent: undici's 10 minutes. */
  readonly keepAliveMaxMs?: number | undefined;
  /** Connections per origin kept open while idle; the others close soon after their answer (idle-cap.ts). Absent: all kept. */
  readonly idleConnectionsPerOrigin?: number | undefined;
  /** Local source address of every connection (an egress identity); absent: the default route. */
  readonly localAddress?: string | undefined;
  /** Connections being opened (handshakes) at once; absent: no bound (see connect-gate.ts). */
  readonly connectsAtOnce?: number | undefined;
  /** Offer HTTP/2 (ALPN h2) to TLS origins; HTTP/1.1 otherwise. @default false */
  readonly allowH2?: boolean | undefined;
}

/**
 * undici's decompression interceptor, made once. Creating it prints "DecompressInterceptor is
 * experimental" to every user of the CLI and the service; it was chosen knowingly (it
 * is tested here through the simulated web's gzip, deflate and brotli answers), so
 * that one warning is kept quiet while it is made. Other warnings are untouched.
 */
const decompress = (() => {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('DecompressInterceptor is experimental')) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return decompressInterceptor({ skipErrorResponses: false });
  } finally {
    process.emitWarning = emitWarning;
  }
})();

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const tls = {
    // One secure context for every connection: passing `ca` per connection would
    // parse the whole root store again on each handshake. Adding a CA keeps the public roots.
    ...(options.ca.length > 0
      ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...options.ca] }) }
      : {}),
    rejectUnauthorized: !options.insecure,
  };
  const allowH2 = options.allowH2 ?? false;
  // undici holds its cached sessions weakly: kept here, so they are there to resume (tls-sessions.ts).
  const sessions = new TlsSessionKeeper(MAX_TLS_SESSIONS);
  const base = buildConnector({
    ...tls,
    allowH2,
    timeout: options.connectTimeoutMs,
    // One TLS session per origin to resume, for all of a catalogue (undici keeps 100):
    // a resumed handshake skips the certificate checks that dominate a cold search's CPU.
    maxCachedSessions: MAX_TLS_SESSIONS,
    ...(options.refusePrivate ? { lookup: guardedLookup } : {}),
  } as UndiciConnector.BuildOptions);

  const gate = options.connectsAtOnce ? new ConnectGate(options.connectsAtOnce) : undefined;
  const connect: UndiciConnector.connector = (opts, callback) => {
    const defaultPort = opts.protocol === 'https:' ? 443 : 80;
    // A private target was refused before this (destination-guard.ts); a name is resolved by `guardedLookup`.
    const target = resolveConnectTo(options.connectTo, opts.hostname, Number(opts.port) || defaultPort);
    const servername = opts.servername || (isIP(opts.hostname) ? undefined : opts.hostname);
    const open = { ...opts, hostname: target.host, port: String(target.port), servername } as typeof opts;
    const opened = (done?: () => void): Parameters<typeof base>[1] =>
      ((error: Error | null, socket: unknown) => {
        done?.();
        if (socket instanceof TLSSocket && servername) sessions.watch(socket, servername);
        (callback as (e: Error | null, s: unknown) => void)(error, socket);
      }) as Parameters<typeof base>[1];
    if (!gate) base(open, opened());
    else gate.run((done) => base(open, opened(done)));
  };

  const common = {
    allowH2,
    connections: options.connectionsPerOrigin,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    ...(options.keepAliveMaxMs ? { keepAliveMaxTimeout: options.keepAliveMaxMs } : {}),
    // Whole-check deadlines are enforced with an AbortSignal; these only stop a stalled socket.
    headersTimeout: 0,
    bodyTimeout: 0,
  };

  let dispatcher: Dispatcher;
  if (options.proxy) {
    const { ProxyAgent, Socks5ProxyAgent } = proxyAgents();
    const url = new URL(options.proxy);
    if (url.protocol === 'socks5:' || url.protocol === 'socks5h:' || url.protocol === 'socks:') {
      dispatcher = new Socks5ProxyAgent(url.href.replace(/^socks5h?:|^socks:/, 'socks5:'), {
        ...common,
        connect: buildConnector({
          ...tls,
          allowH2,
          timeout: options.connectTimeoutMs,
        } as UndiciConnector.BuildOptions),
      });
    } else if (url.protocol === 'http:' || url.protocol === 'https:') {
      dispatcher = new ProxyAgent({ uri: url.href, ...common, requestTls: tls, proxyTls: tls });
    } else {
      throw new UserscoutError(
        'invalid_argument',
        `--proxy ${options.proxy}: use http://, https:// or socks5://`,
      );
    }
  } else {
    dispatcher = new Agent({
      ...common,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      connect,
      factory: leanPools(
        options.idleConnectionsPerOrigin === undefined
          ? undefined
          : { kept: options.idleConnectionsPerOrigin, graceMs: IDLE_GRACE_MS },
      ),
    });
  }
  // The guard is outermost: every request, the first and each redirect hop, on every route.
  return options.refusePrivate
    ? dispatcher.compose(
        decompress,
        destinationGuard({ connectTo: options.connectTo, resolveNames: Boolean(options.proxy) }),
      )
    : dispatcher.compose(decompress);
}
