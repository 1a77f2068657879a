/**
 * The `impersonate` transport: impit, a Rust client that makes Chrome's TLS
 * ClientHello, HTTP/2 settings and header order, for sites that refuse a handshake
 * that is not a browser's. Its connections go through the identity's egress gateway
 * (egress-gateway.ts), which applies `--connect-to`, the refusal of private
 * destinations, the source address and the proxy, as the http path does.
 */
import type { HttpMethod, Impit } from 'impit';
import type { CheckRequest } from '../verdict/request.js';
import type { EgressGateway } from './egress-gateway.js';
import type { Exchange } from './http.js';
import { closedUnderRequest, impitTransportError } from './impit-error.js';
import { withImpitTrust } from './impit-trust.js';
import { headerRecord, readBody } from './read-body.js';
import { type Hop, REDIRECT_STATUSES, redirectHop } from './redirect.js';
import type { TransportExchangeOptions } from './transports.js';

export interface ImpersonateOptions {
  readonly gateway: EgressGateway;
  /** Extra trusted CA certificates (PEM), added to the public roots. */
  readonly ca: readonly string[];
  readonly insecure: boolean;
  readonly maxRedirects: number;
}

/** Headers of ours that would give impit's browser away: it sends its own, in a browser's order. */
const BROWSER_OWNED = new Set(['user-agent', 'accept-encoding', 'accept-language', 'accept', 'connection']);

/** Methods sent again when a reused connection closed under them (idempotent, RFC 9110 9.2.2). */
const RESENDABLE: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD', 'OPTIONS']);

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
    const send = (url: string, method: HttpMethod, body: string | undefined, follow: boolean) =>
      impit.fetch(url, {
        method,
        headers: request.session ? request.session.addTo(url, headers) : headers,
        ...(body === undefined ? {} : { body }),
        redirect: follow ? 'follow' : 'manual',
        signal: options.signal,
      });
    // A reused connection the server closed idle under the request: once more, on a new one.
    const fetch = async (url: string, method: HttpMethod, body: string | undefined, follow: boolean) => {
      try {
        return await send(url, method, body, follow);
      } catch (error) {
        if (options.signal.aborted || !RESENDABLE.has(method) || !closedUnderRequest(error)) throw error;
        return send(url, method, body, follow);
      }
    };
    let url = request.url;
    try {
      if (!request.session)
        response = await fetch(url, request.method, request.body, request.redirects === 'follow');
      else {
        // With a session the hops are followed here, so that one to another host goes without it.
        let method: HttpMethod = request.method;
        let body = request.body;
        for (let hop = 0; ; hop++) {
          response = await fetch(url, method, body, false);
          const location = response.headers.get('location');
          if (request.redirects !== 'follow' || hop >= this.#options.maxRedirects) break;
          if (!location || !REDIRECT_STATUSES.has(response.status)) break;
          const next: Hop<HttpMethod> | undefined = redirectHop(response.status, location, url, method, body);
          if (!next) break;
          await response.body?.cancel().catch(() => undefined);
          ({ url, method, body } = next);
        }
      }
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      throw impitTransportError(error);
    }
    const answeredUrl = response.url || url;
    const head = {
      status: response.status,
      headers: headerRecord(response.headers.entries()),
      url: answeredUrl,
      redirected: answeredUrl !== request.url,
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
      throw impitTransportError(error);
    }
  }
}
