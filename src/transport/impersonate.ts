/**
 * The `impersonate` transport: impit, a Rust client that makes Chrome's TLS
 * ClientHello, HTTP/2 settings and header order, for sites that refuse a handshake
 * that is not a browser's. Its connections go through the identity's egress gateway
 * (egress-gateway.ts), which applies `--connect-to`, the refusal of private
 * destinations, the source address and the proxy, as the http path does.
 */
import type { Impit } from 'impit';
import type { Exchange } from '../engine/http.js';
import type { CheckRequest } from '../engine/request.js';
import { BLOCKED_DESTINATION_CODE } from '../engine/transport-error.js';
import type { TransportExchangeOptions } from '../engine/transports.js';
import type { EgressGateway } from './egress-gateway.js';
import { withImpitTrust } from './impit-trust.js';
import { headerRecord, readBody } from './read-body.js';

export interface ImpersonateOptions {
  readonly gateway: EgressGateway;
  /** Extra trusted CA certificates (PEM), added to the public roots. */
  readonly ca: readonly string[];
  readonly insecure: boolean;
  readonly maxRedirects: number;
}

/** Headers of ours that would give impit's browser away: it sends its own, in a browser's order. */
const BROWSER_OWNED = new Set(['user-agent', 'accept-encoding', 'accept-language', 'accept', 'connection']);

/** A failure of impit, with the code transport-error.ts reads. */
function transportError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { status?: unknown } | undefined)?.status;
  const name = error instanceof Error ? error.constructor.name : '';
  // The gateway answers a refused destination with 403 to CONNECT (egress-gateway.ts).
  const code =
    status === 403 || /\b403\b/.test(message)
      ? BLOCKED_DESTINATION_CODE
      : /timeout/i.test(name)
        ? 'ETIMEDOUT'
        : /certificate|tls|handshake/i.test(message)
          ? 'ERR_TLS_CERT_ALTNAME_INVALID'
          : 'ECONNREFUSED';
  return Object.assign(new Error(`impersonate: ${message.split('\n')[0]}`, { cause: error }), { code });
}

export class ImpersonateTransport {
  readonly #options: ImpersonateOptions;
  #client: Promise<Impit> | undefined;

  constructor(options: ImpersonateOptions) {
    this.#options = options;
  }

  #impit(): Promise<Impit> {
    this.#client ??= (async () => {
      const [{ Impit }, gateway] = await Promise.all([import('impit'), this.#options.gateway.address()]);
      const proxyUrl = `http://${gateway.username}:${gateway.password}@${gateway.host}:${gateway.port}`;
      // The configured CAs even when insecure: the first client made fixes them for the process.
      return withImpitTrust(
        this.#options.ca,
        () =>
          new Impit({
            browser: 'chrome',
            proxyUrl,
            ignoreTlsErrors: this.#options.insecure,
            maxRedirects: this.#options.maxRedirects,
          }),
      );
    })();
    return this.#client;
  }

  async exchange<D>(request: CheckRequest, options: TransportExchangeOptions<D>): Promise<Exchange<D>> {
    options.signal.throwIfAborted();
    const impit = await this.#impit();
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !BROWSER_OWNED.has(name.toLowerCase())),
    );
    let response: Awaited<ReturnType<Impit['fetch']>>;
    try {
      response = await impit.fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: request.redirects === 'follow' ? 'follow' : 'manual',
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      throw transportError(error);
    }
    const head = {
      status: response.status,
      headers: headerRecord(response.headers.entries()),
      url: response.url || request.url,
      redirected: Boolean(response.url) && response.url !== request.url,
    };
    try {
      return await readBody(
        head,
        request.method === 'HEAD' ? null : response.body,
        options.bodyCapBytes,
        options.decide,
      );
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      throw transportError(error);
    }
  }
}
