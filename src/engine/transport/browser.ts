/**
 * The `browser` transport: headless Chromium driven by playwright-core, for sites
 * that answer a JavaScript challenge. Its browsers are launched on first use and
 * reused, replaced when they crash or hang (browser-pool.ts); each check gets a tab
 * (a context and its page) to itself, wiped and kept for the next or closed
 * (browser-tabs.ts). A check is costly, so it takes a slot of the process and one of
 * the cluster (browser-slots.ts) and a place in its site's browser budget first, or is
 * not sent. What is read (page-reading.ts) is what the page shows once its scripts
 * ran: the final URL, the status and headers of the main document, the DOM's HTML.
 * Every connection goes through the egress gateway (egress-gateway.ts), loopback
 * included, so `--connect-to`, the private-destination refusal, the source address
 * and the proxy hold as on the http path.
 */
import { existsSync } from 'node:fs';
import type { Request } from 'playwright-core';
import { untilAborted } from '../../abort.js';
import { UserscoutError } from '../../errors.js';
import type { CheckRequest } from '../verdict/request.js';
import type { BrowserBudget } from './browser-budget.js';
import type { BrowserDirectory } from './browser-directory.js';
import { browserErrorCode, closedUnder, isTunnelRefusal } from './browser-error.js';
import { BrowserPool } from './browser-pool.js';
import { type BrowserSlots, once, ProcessBrowserSlots, type SlotRelease, takeSlot } from './browser-slots.js';
import { endTab, IdleTabs, type Opened, type Tab, wipe } from './browser-tabs.js';
import type { EgressGateway } from './egress-gateway.js';
import type { Exchange } from './http.js';
import { PageReading } from './page-reading.js';
import type { TransportTally } from './transport-tally.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE, type TransportExchangeOptions } from './transports.js';

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
  /** Contexts (checks) at once in the process, its threads together (counted in `tally`). */
  readonly contexts: number;
  /** Chromium processes at most. */
  readonly browsers: number;
  /** The browsers of the process's search threads, shared (its places are the cap); absent: this transport's own. */
  readonly directory?: BrowserDirectory | undefined;
  /** Where the process counts what its browsers cost, shared by its search threads. */
  readonly tally: TransportTally;
  /** The cluster's slots (Redis), or none beyond the process's when alone. */
  readonly clusterSlots: BrowserSlots;
  /** Browser checks at once in the cluster, named in the message of a check held back. */
  readonly clusterCap: number;
  /** Longest a check holds a cluster slot: its deadline, and the time to close its context. */
  readonly holdMs: number;
  /** Each site's browser budget, separate from its request budget; absent: none. */
  readonly siteBudget?: BrowserBudget | undefined;
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
export function browserRefusal(options: {
  /** Whether the operator gave CAs to trust beyond the system's (`--ca-file`). */
  readonly extraCa: boolean;
  readonly insecure: boolean;
}): UserscoutError | undefined {
  if (!options.extraCa || options.insecure) return undefined;
  return new UserscoutError(
    'transport_unavailable',
    'the browser transport cannot trust an extra CA (--ca-file): Chromium verifies with its own store only; add the CA to the system store, or use --insecure for a test CA',
  );
}

/**
 * What to say once at start when the settings keep the browser off while some of
 * `platforms` may need it (their entry names it, or escalation may reach it), so a user
 * learns it there and not from each check's unknown. Undefined when nothing is kept off.
 */
export function browserStartNotice(
  settings: { readonly caFile: string; readonly insecure: boolean; readonly escalations: number },
  platforms: readonly { readonly transport: string }[],
): string | undefined {
  const refusal = browserRefusal({ extraCa: settings.caFile !== '', insecure: settings.insecure });
  if (!refusal) return undefined;
  const named = platforms.filter((p) => p.transport === 'browser').length;
  if (named === 0 && settings.escalations === 0) return undefined;
  const who = [
    ...(named > 0
      ? [`${named} platform${named === 1 ? '' : 's'} naming it will read unknown (needs_browser)`]
      : []),
    ...(settings.escalations > 0 ? ['escalations stop before it'] : []),
  ].join(', and ');
  return `browser transport off: ${refusal.message}; ${who}`;
}

/** Resources a check never needs to read a page: not fetched, to save the CPU and bytes. */
const SKIPPED = new Set(['image', 'media', 'font', 'stylesheet']);

function needsBrowser(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), {
    code: NEEDS_BROWSER_CODE,
  });
}

/** A check not sent for the browser's cost: no slot in time, or its site's browser budget spent. */
function heldBack(message: string): Error {
  return Object.assign(new Error(message), { code: BROWSER_HELD_BACK_CODE });
}

export class BrowserTransport {
  readonly #options: BrowserOptions;
  readonly #pool: BrowserPool;
  readonly #idle: IdleTabs;
  readonly #processSlots: BrowserSlots;
  #closed = false;

  constructor(options: BrowserOptions) {
    this.#options = options;
    this.#processSlots = new ProcessBrowserSlots(options.tally, options.contexts);
    this.#idle = new IdleTabs(options.contexts);
    this.#pool = new BrowserPool({
      size: options.browsers,
      tally: options.tally,
      directory: options.directory,
      launch: () => this.#launchOptions(),
    });
  }

  /** Why no check can go through the browser here; undefined when one can. */
  missing(): string | undefined {
    if (findBrowser(this.#options.executablePath)) return undefined;
    return this.#options.executablePath
      ? `no browser at ${this.#options.executablePath} (USERSCOUT_BROWSER_PATH)`
      : `no browser installed (looked for ${BROWSER_PATHS.join(', ')}): apt-get install chromium`;
  }

  async #launchOptions() {
    const executablePath = findBrowser(this.#options.executablePath);
    if (!executablePath) throw needsBrowser(this.missing() ?? 'no browser installed');
    const refusal = browserRefusal({
      extraCa: this.#options.ca.length > 0,
      insecure: this.#options.insecure,
    });
    if (refusal) throw refusal;
    let chromium: typeof import('playwright-core').chromium;
    try {
      ({ chromium } = await import('playwright-core'));
    } catch (error) {
      throw needsBrowser('playwright-core is not installed', error);
    }
    return {
      chromium,
      options: {
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
      },
    };
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
    // Chromium scopes a cookie to one host, but a header it carries on to wherever a redirect leads.
    if (request.session?.hasHeaders)
      throw Object.assign(
        new Error('browser: a session with headers cannot be kept to one host by a browser; give cookies'),
        { code: 'EUSERSCOUT_SESSION_UNSCOPED' },
      );
    const { tally } = this.#options;
    // Admitted before its deadline started (transport-choice.ts), or an escalation: its slot within the deadline.
    const release = options.admitted ? undefined : await this.admit(signal);
    try {
      if (!options.admitted && !release) throw heldBack(this.noSlotMessage('within the deadline'));
      const site = this.#options.siteBudget;
      const host = new URL(request.url).hostname;
      if (site && !(await site.take(host))) {
        tally.add('siteBudgetSpent');
        throw heldBack(
          `not sent: the browser budget of ${host} (${site.perMinute} browser checks a minute, USERSCOUT_BROWSER_CHECKS_PER_SITE_MINUTE) is spent`,
        );
      }
      // A browser that died under the check is not the site's answer: tried once more on its replacement.
      try {
        return await this.#attempt(identity, request, options);
      } catch (error) {
        if (!(error instanceof BrowserGoneError) || signal.aborted) throw unwrapGone(error);
        return await this.#attempt(identity, request, options).catch((again: unknown) => {
          throw unwrapGone(again);
        });
      }
    } finally {
      release?.();
    }
  }

  /**
   * Waits, until `signal` aborts, for a browser slot: the process's, then the cluster's. The
   * release of both, or undefined when none came (nothing is then held).
   */
  async admit(signal: AbortSignal): Promise<SlotRelease | undefined> {
    const { tally } = this.#options;
    let waited = false;
    const onWait = () => {
      if (waited) return;
      waited = true;
      tally.add('slotWaits');
    };
    const own = await takeSlot(this.#processSlots, 0, signal, onWait);
    const shared = own && (await takeSlot(this.#options.clusterSlots, this.#options.holdMs, signal, onWait));
    if (own && shared)
      return once(() => {
        shared();
        own();
      });
    own?.();
    tally.add('slotTimeouts');
    return undefined;
  }

  /** Why a check was not sent for want of a browser slot, `when` saying within what. */
  noSlotMessage(when: string): string {
    return `not sent: no browser slot came free ${when} (${this.#options.contexts} browser checks at once in this process, USERSCOUT_BROWSER_CONTEXTS; ${this.#options.clusterCap} in the cluster, USERSCOUT_BROWSER_CHECKS_AT_ONCE)`;
  }

  /**
   * One try in a tab: a wiped one of the identity's when there is one, else a new context
   * and page on a browser of the pool. After a check that stayed on its own origin the tab
   * is wiped and kept (browser-tabs.ts); otherwise its context is closed (within
   * BROWSER_CLOSE_MS, or its browser is killed as hung).
   */
  async #attempt<D>(
    identity: number,
    request: CheckRequest,
    options: TransportExchangeOptions<D>,
  ): Promise<Exchange<D>> {
    const { signal } = options;
    const tab = (await this.#idle.takeCleared(identity, signal)) ?? (await this.#open(identity, signal));
    let died = false;
    let kept = false;
    try {
      signal.throwIfAborted();
      // A browser that no longer answers never opens it: the deadline ends the wait.
      const opened = await untilAborted(tab.opening, signal);
      signal.throwIfAborted();
      // Every document the context asks for, a popup's or a late frame's too, until the wipe ends.
      const origins = new Set<string>();
      const onRequest = (asked: Request) => {
        if (asked.resourceType() === 'document') origins.add(new URL(asked.url()).origin);
      };
      opened.context.on('request', onRequest);
      try {
        // Host-only cookies: Chromium sends them to the session's host alone, redirects included.
        if (request.session) await opened.context.addCookies(request.session.browserCookies());
        const exchange = await new PageReading(tab, opened, request, options).read();
        const origin = new URL(request.url).origin;
        // Storage written by another origin's document would not be wiped: such a tab is closed.
        const ownOnly = () => origins.size === 1 && origins.has(origin);
        kept = !this.#closed && !signal.aborted && ownOnly() && (await wipe(opened, origin)) && ownOnly();
        return exchange;
      } finally {
        opened.context.off('request', onRequest);
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const refused = refusalOf(error, this.#gateway(identity), request.url);
      // Playwright may reject with the browser's closing before its process or connection tells.
      died = tab.pooled.gone() || closedUnder(error);
      throw died ? new BrowserGoneError(refused) : refused;
    } finally {
      tab.serving.current = undefined;
      // A transport closed during the wipe takes no idle tab.
      if (kept && !this.#closed) this.#idle.put(tab, new URL(request.url).origin);
      // A browser that died during the wipe is gone, not a context closed.
      else await endTab(tab, died || tab.pooled.gone());
    }
  }

  /** A new tab of `identity` on a browser of the pool: its context and page still opening. */
  async #open(identity: number, signal: AbortSignal): Promise<Tab> {
    // A launch is waited for within the deadline; one that comes after it is given back.
    const acquiring = this.#pool.acquire();
    const { pooled, done } = await untilAborted(acquiring, signal).catch((error: unknown) => {
      acquiring.then(
        ({ done }) => done('closed'),
        () => undefined,
      );
      throw error;
    });
    const serving: Tab['serving'] = {};
    const opening = (async (): Promise<Opened> => {
      const context = await pooled.browser.newContext({
        ignoreHTTPSErrors: this.#options.insecure,
        serviceWorkers: 'block',
        proxy: await proxyOf(this.#gateway(identity)),
      });
      const tally = this.#options.tally;
      tally.add('tabs');
      context.on('page', (page) => {
        tally.adjustPages(1);
        page.once('close', () => tally.adjustPages(-1));
      });
      // A context whose page could not be made ready is closed here: no tab holds it.
      try {
        const page = await context.newPage();
        await page.route('**/*', async (route) => {
          const asked = route.request();
          if (SKIPPED.has(asked.resourceType())) return route.abort('blockedbyclient');
          // The check's own request (its method, body and headers) is the first navigation; later ones are the page's.
          const check = serving.current;
          if (check?.first && asked.isNavigationRequest()) {
            check.first = false;
            const { request } = check;
            return route.continue({
              method: request.method,
              headers: { ...asked.headers(), ...platformHeaders(request.headers) },
              ...(request.body === undefined ? {} : { postData: request.body }),
            });
          }
          return route.continue();
        });
        // The page's answers are counted against the body cap through it (browser-body-cap.ts);
        // it keeps no copy of their bodies, which Chromium would otherwise hold for each session.
        const session = await context.newCDPSession(page);
        await session.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
        return { context, page, session };
      } catch (error) {
        await context.close().catch(() => undefined);
        throw error;
      }
    })();
    opening.catch(() => undefined);
    return { identity, pooled, done, opening, serving };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#idle.close();
    await this.#pool.close();
  }
}

/** A check's browser died under it: its error, kept as the cause. */
class BrowserGoneError extends Error {
  constructor(cause: unknown) {
    super('the browser died during the check', { cause });
  }
}

function unwrapGone(error: unknown): unknown {
  return error instanceof BrowserGoneError ? error.cause : error;
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
 * A failed check with the code transport-error.ts reads: Chromium reports every refused
 * tunnel alike, so for one of those the gateway is asked why it refused it.
 */
function refusalOf(error: unknown, gateway: EgressGateway, url: string): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== undefined) return error;
  const { hostname, port, protocol } = new URL(url);
  const refused = isTunnelRefusal(error.message)
    ? gateway.refusal(hostname, Number(port) || (protocol === 'https:' ? 443 : 80))
    : undefined;
  const code = refused ?? browserErrorCode(error.message);
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
