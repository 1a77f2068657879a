/**
 * The `browser` transport: headless Chromium driven by playwright-core, for sites
 * that answer a JavaScript challenge. One browser is launched on first use and
 * reused (launched again if it dies); each check gets a fresh context, closed after,
 * at most `contexts` at once. What is read is what the page shows once its scripts
 * ran: the final URL, the status and headers of the main document, the DOM's HTML.
 * Every connection goes through the egress gateway (egress-gateway.ts), loopback
 * included, so `--connect-to`, the private-destination refusal, the source address
 * and the proxy hold as on the http path.
 */
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Response } from 'playwright-core';
import type { Exchange } from '../engine/http.js';
import type { CheckRequest } from '../engine/request.js';
import type { ResponseView } from '../engine/response-view.js';
import { NEEDS_BROWSER_CODE, type TransportExchangeOptions } from '../engine/transports.js';
import { UserscoutError } from '../errors.js';
import type { EgressGateway } from './egress-gateway.js';

/** Where Debian, Ubuntu and Google's packages put the browser. */
export const BROWSER_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
] as const;

export interface BrowserOptions {
  /** One per egress identity, in their order; each context goes out through its check's. */
  readonly gateways: readonly EgressGateway[];
  /** The Chromium executable; empty: the first of BROWSER_PATHS found. */
  readonly executablePath: string;
  /** Contexts (checks) at once. */
  readonly contexts: number;
  /** Extra CA certificates: Chromium cannot be given any (see `browserRefusal`). */
  readonly ca: readonly string[];
  readonly insecure: boolean;
}

/** The executable to launch, or undefined when none is installed. */
export function findBrowser(configured: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return BROWSER_PATHS.find((path) => existsSync(path));
}

/** The executable to launch as configured (`browserPath`), or the first usual path when none is found: its absence is then reported by whoever launches it. */
export function chromiumPath(configured: string): string {
  return findBrowser(configured) ?? (configured || BROWSER_PATHS[0]!);
}

/**
 * Why the browser transport cannot start with these settings, or undefined. Chromium
 * on Linux trusts only its own store (and NSS's user database): an extra CA cannot be
 * added per launch, and ignoring errors for a CA's key would also accept any server
 * that merely presents that CA's certificate. So `--ca-file` without `--insecure` is refused.
 */
export function browserRefusal(options: Pick<BrowserOptions, 'ca' | 'insecure'>): UserscoutError | undefined {
  if (options.ca.length === 0 || options.insecure) return undefined;
  return new UserscoutError(
    'transport_unavailable',
    'the browser transport cannot trust an extra CA (--ca-file): Chromium verifies with its own store only; add the CA to the system store, or use --insecure for a test CA',
  );
}

/** Resources a check never needs to read a page: not fetched, to save the CPU and bytes. */
const SKIPPED = new Set(['image', 'media', 'font', 'stylesheet']);

/** How long a page must stay on one document, after its load, to be read (a challenge reloads within it). */
const SETTLE_MS = 400;

function needsBrowser(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), {
    code: NEEDS_BROWSER_CODE,
  });
}

/** A counting semaphore over browser contexts. */
class ContextSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async take(signal: AbortSignal): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.#waiting.indexOf(wake);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.#waiting.push(wake);
      });
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

export class BrowserTransport {
  readonly #options: BrowserOptions;
  readonly #slots: ContextSlots;
  #browser: Promise<Browser> | undefined;
  #closed = false;

  constructor(options: BrowserOptions) {
    this.#options = options;
    this.#slots = new ContextSlots(options.contexts);
  }

  /** Why no check can go through the browser here; undefined when one can. */
  missing(): string | undefined {
    if (findBrowser(this.#options.executablePath)) return undefined;
    return this.#options.executablePath
      ? `no browser at ${this.#options.executablePath} (USERSCOUT_BROWSER_PATH)`
      : `no browser installed (looked for ${BROWSER_PATHS.join(', ')}): apt-get install chromium`;
  }

  #launch(): Promise<Browser> {
    if (this.#browser) return this.#browser;
    const executablePath = findBrowser(this.#options.executablePath);
    const launching = (async () => {
      if (!executablePath) throw needsBrowser(this.missing() ?? 'no browser installed');
      const refusal = browserRefusal(this.#options);
      if (refusal) throw refusal;
      let chromium: typeof import('playwright-core').chromium;
      try {
        ({ chromium } = await import('playwright-core'));
      } catch (error) {
        throw needsBrowser('playwright-core is not installed', error);
      }
      const browser = await chromium.launch({
        executablePath,
        headless: true,
        // Each context names its identity's gateway; this one only stands behind them.
        proxy: await proxyOf(this.#gateway(0)),
        args: [
          '--disable-quic',
          '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
          '--disable-background-networking',
          '--disable-dev-shm-usage',
          '--no-first-run',
        ],
      });
      // A browser that dies is launched again by the next check.
      browser.on('disconnected', () => {
        if (this.#browser === launching) this.#browser = undefined;
      });
      return browser;
    })();
    this.#browser = launching;
    launching.catch(() => {
      if (this.#browser === launching) this.#browser = undefined;
    });
    return launching;
  }

  #gateway(identity: number): EgressGateway {
    const gateway = this.#options.gateways[identity] ?? this.#options.gateways[0];
    if (!gateway) throw new Error('the browser transport has no egress gateway');
    return gateway;
  }

  async exchange<D>(
    identity: number,
    request: CheckRequest,
    options: TransportExchangeOptions<D>,
  ): Promise<Exchange<D>> {
    const { signal } = options;
    signal.throwIfAborted();
    if (this.#closed) throw needsBrowser('the browser transport is closed');
    const release = await this.#slots.take(signal);
    let context: BrowserContext | undefined;
    const onAbort = () => void context?.close().catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const browser = await this.#launch();
      signal.throwIfAborted();
      const gateway = this.#gateway(identity);
      context = await browser.newContext({
        ignoreHTTPSErrors: this.#options.insecure,
        serviceWorkers: 'block',
        proxy: await proxyOf(gateway),
      });
      if (signal.aborted) throw signal.reason;
      return await this.#read(context, request, options);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw refusalOf(error, this.#gateway(identity), request.url);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await context?.close().catch(() => undefined);
      release();
    }
  }

  async #read<D>(
    context: BrowserContext,
    request: CheckRequest,
    options: TransportExchangeOptions<D>,
  ): Promise<Exchange<D>> {
    const page = await context.newPage();
    let first = true;
    await page.route('**/*', async (route) => {
      const asked = route.request();
      if (SKIPPED.has(asked.resourceType())) return route.abort('blockedbyclient');
      // The check's own request (its method, body and headers) is the first navigation; later ones are the page's.
      if (first && asked.isNavigationRequest()) {
        first = false;
        return route.continue({
          method: request.method,
          headers: { ...asked.headers(), ...platformHeaders(request.headers) },
          ...(request.body === undefined ? {} : { postData: request.body }),
        });
      }
      return route.continue();
    });
    let document: Response | undefined;
    let navigations = 0;
    page.on('response', (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        document = response;
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    const aborted = new Promise<never>((_, reject) => {
      if (options.signal.aborted) reject(options.signal.reason);
      options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    const answered = await Promise.race([page.goto(request.url, { waitUntil: 'load', timeout: 0 }), aborted]);
    document ??= answered ?? undefined;
    // A challenge's script sets its cookie and reloads: read once the page stays on one document.
    for (let seen = -1; seen !== navigations; ) {
      seen = navigations;
      await Promise.race([page.waitForLoadState('load', { timeout: 0 }), aborted]);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, SETTLE_MS)), aborted]);
    }
    const html = await Promise.race([page.content(), aborted]);
    const bytes = Buffer.from(html, 'utf8');
    const capped =
      bytes.length > options.bodyCapBytes ? bytes.subarray(0, options.bodyCapBytes).toString('utf8') : html;
    const url = page.url();
    const view: ResponseView = {
      status: document?.status() ?? 200,
      headers: document ? await document.allHeaders() : {},
      url,
      redirected: url !== request.url,
      body: capped,
      complete: true,
    };
    const decision = options.decide(view);
    return { view, bytesRead: Math.min(bytes.length, options.bodyCapBytes), decision };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const browser = this.#browser;
    this.#browser = undefined;
    await browser?.then((b) => b.close()).catch(() => undefined);
  }
}

/** Playwright's proxy setting for a gateway. Loopback too goes through it, which refuses it unless private destinations are allowed. */
async function proxyOf(gateway: EgressGateway) {
  const address = await gateway.address();
  return {
    server: `http://${address.host}:${address.port}`,
    username: address.username,
    password: address.password,
    bypass: '<-loopback>',
  };
}

/**
 * A failed navigation with the code transport-error.ts reads: Chromium reports every
 * refused tunnel alike, so the gateway is asked why it refused this one.
 */
function refusalOf(error: unknown, gateway: EgressGateway, url: string): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== undefined) return error;
  const { hostname, port, protocol } = new URL(url);
  const refused = gateway.refusal(hostname, Number(port) || (protocol === 'https:' ? 443 : 80));
  const code = refused ?? (/ERR_TIMED_OUT/.test(error.message) ? 'ETIMEDOUT' : 'ECONNREFUSED');
  return Object.assign(new Error(`browser: ${error.message.split('\n')[0]}`, { cause: error }), { code });
}

/** The platform's own headers, without ours that the browser sets itself (its user agent, encodings). */
function platformHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (key === 'user-agent' || key === 'accept-encoding' || key === 'accept' || key === 'accept-language')
      continue;
    out[key] = value;
  }
  return out;
}
