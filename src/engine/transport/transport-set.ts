/**
 * The transports a process offers besides `http`, built from the same network
 * settings as its undici dispatchers: an egress gateway per identity, an impit
 * client per identity, one browser for all. Nothing starts until a check needs it.
 */
import type { Transport } from '../../catalogue/platform.js';
import type { CheckRequest } from '../verdict/request.js';
import { type BrowserOptions, BrowserTransport, browserRefusal } from './browser.js';
import type { ConnectToRule } from './connect-to.js';
import { EgressGateway } from './egress-gateway.js';
import type { Exchange } from './http.js';
import { ImpersonateTransport } from './impersonate.js';
import type { TransportExchangeOptions, Transports } from './transports.js';

/** The browser's own settings pass through as they are; the rest are the set's. */
type SharedBrowserOptions = Pick<
  BrowserOptions,
  'browsers' | 'directory' | 'tally' | 'clusterSlots' | 'clusterCap' | 'holdMs' | 'siteBudget'
>;

export interface TransportSetOptions extends SharedBrowserOptions {
  readonly connectTo: readonly ConnectToRule[];
  readonly ca: readonly string[];
  readonly insecure: boolean;
  readonly refusePrivate: boolean;
  readonly connectTimeoutMs: number;
  readonly maxRedirects: number;
  /** One per egress identity, in their order: a source address or a proxy (neither: the default route). */
  readonly identities: readonly {
    readonly localAddress?: string | undefined;
    readonly proxy?: string | undefined;
  }[];
  readonly browserPath: string;
  readonly browserContexts: number;
}

export class TransportSet implements Transports {
  readonly #gateways: EgressGateway[];
  readonly #impersonate: ImpersonateTransport[];
  readonly #browser: BrowserTransport;
  readonly #refusal: Error | undefined;

  constructor(options: TransportSetOptions) {
    const identities = options.identities.length ? options.identities : [{}];
    this.#gateways = identities.map(
      (identity) =>
        new EgressGateway({
          connectTo: options.connectTo,
          refusePrivate: options.refusePrivate,
          connectTimeoutMs: options.connectTimeoutMs,
          localAddress: identity.localAddress,
          proxy: identity.proxy,
        }),
    );
    this.#impersonate = this.#gateways.map(
      (gateway) =>
        new ImpersonateTransport({
          gateway,
          ca: options.ca,
          insecure: options.insecure,
          maxRedirects: options.maxRedirects,
        }),
    );
    this.#refusal = browserRefusal({ extraCa: options.ca.length > 0, insecure: options.insecure });
    this.#browser = new BrowserTransport({
      gateways: this.#gateways,
      executablePath: options.browserPath,
      contexts: options.browserContexts,
      browsers: options.browsers,
      directory: options.directory,
      tally: options.tally,
      clusterSlots: options.clusterSlots,
      clusterCap: options.clusterCap,
      holdMs: options.holdMs,
      siteBudget: options.siteBudget,
      ca: options.ca,
      insecure: options.insecure,
    });
  }

  /**
   * A browser these settings would make leak (trusting a CA it cannot be given) is as
   * missing as one not installed: its checks end unknown, each saying why, and the rest
   * of the catalogue is searched as usual.
   */
  missing(transport: Exclude<Transport, 'http'>): string | undefined {
    if (transport !== 'browser') return undefined;
    return this.#refusal?.message ?? this.#browser.missing();
  }

  async admitBrowser(
    signal: AbortSignal,
  ): Promise<{ readonly release: () => void } | { readonly heldBack: string }> {
    const release = await this.#browser.admit(signal);
    return release ? { release } : { heldBack: this.#browser.noSlotMessage('within the wait for one') };
  }

  exchange<D>(
    transport: Exclude<Transport, 'http'>,
    identity: number,
    request: CheckRequest,
    options: TransportExchangeOptions<D>,
  ): Promise<Exchange<D>> {
    if (transport === 'browser') return this.#browser.exchange(identity, request, options);
    const client = this.#impersonate[identity] ?? this.#impersonate[0];
    if (!client) throw new Error('no impersonating client');
    return client.exchange(request, options);
  }

  async close(): Promise<void> {
    await this.#browser.close();
    await Promise.all(this.#gateways.map((gateway) => gateway.close()));
  }
}
