/**
 * How a browser check reads its page: it navigates, waits until the page stays on one
 * document, and reads what the page shows then (the final URL, the main document's status
 * and headers, the DOM's HTML). A page read as a challenge its script passes unattended
 * (`options.passes`) is read again each time it moves on, for at most
 * BROWSER_CHALLENGE_WAIT_MS and within the deadline, its last reading standing then: such a
 * script may work for seconds before it reloads. Reading stops early, the page read as it
 * stands, once an answer passed the body cap (as http.ts stops reading) or a navigation of
 * the page's own went unanswered.
 */
import type { Response } from 'playwright-core';
import {
  BROWSER_CHALLENGE_WAIT_MS,
  BROWSER_NAVIGATION_WAIT_MS,
  BROWSER_READ_TRIES,
  BROWSER_SETTLE_MS,
} from '../../tuning.js';
import type { CheckRequest } from '../verdict/request.js';
import type { ResponseView } from '../verdict/response-view.js';
import { BodyCapWatch } from './browser-body-cap.js';
import { closedUnder } from './browser-error.js';
import type { Opened, Tab } from './browser-tabs.js';
import type { Exchange } from './http.js';
import { PageSettling } from './page-settling.js';
import type { TransportExchangeOptions } from './transports.js';

/** What a wait gives when the body cap stopped the page's loading before it ended. */
const STOPPED = Symbol('stopped at the body cap');
/** What a wait gives when a challenge the page showed did not move on within BROWSER_CHALLENGE_WAIT_MS. */
const WAITED = Symbol('a challenge waited for');
/** What a wait gives when a navigation the page started itself went unanswered too long. */
const STALLED = Symbol('a navigation of the page unanswered');

/** Run in the page: whether it holds a script or a meta refresh, the ways a page navigates itself. */
const CAN_NAVIGATE_ITSELF = () =>
  document.scripts.length > 0 || document.querySelector('meta[http-equiv="refresh" i]') !== null;

/** A reading, and the documents the page had committed when it began. */
interface Reading<D> {
  readonly exchange: Exchange<D>;
  readonly seen: number;
}

/** One check's reading of its tab's page; `read` once. */
export class PageReading<D> {
  readonly #tab: Tab;
  readonly #opened: Opened;
  readonly #request: CheckRequest;
  readonly #options: TransportExchangeOptions<D>;
  readonly #settling: PageSettling;
  readonly #cap: BodyCapWatch;
  readonly #aborted: Promise<never>;
  readonly #stopped: Promise<typeof STOPPED>;
  readonly #stalled: Promise<typeof STALLED>;
  /** The answer to the check's own navigation: the page's document until another commits. */
  #first: Response | undefined;

  constructor(tab: Tab, opened: Opened, request: CheckRequest, options: TransportExchangeOptions<D>) {
    this.#tab = tab;
    this.#opened = opened;
    this.#request = request;
    this.#options = options;
    this.#settling = new PageSettling(opened.page, BROWSER_NAVIGATION_WAIT_MS);
    this.#cap = new BodyCapWatch(opened.session, options.bodyCapBytes);
    const { signal } = options;
    this.#aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    this.#aborted.catch(() => undefined);
    this.#stopped = this.#cap.stopped.then((): typeof STOPPED => STOPPED);
    this.#stalled = this.#settling.stalled.then((): typeof STALLED => STALLED);
  }

  /** Navigates to the check's URL and reads the page, waiting out a challenge that passes unattended. */
  async read(): Promise<Exchange<D>> {
    const { page } = this.#opened;
    this.#tab.serving.current = { request: this.#request, first: true };
    try {
      const going = page.goto(this.#request.url, { waitUntil: 'load', timeout: 0 });
      // Stopped before its document came, the navigation fails: the page is read as it stands.
      going.catch(() => undefined);
      const answered = await this.#until(going);
      this.#first = typeof answered === 'symbol' ? undefined : (answered ?? undefined);
      await this.#settle(-1);
      let reading = await this.#readSettled();
      // A challenge that has not moved on within its wait reads as the challenge it showed.
      let patience: NodeJS.Timeout | undefined;
      const waited = new Promise<typeof WAITED>((resolve) => {
        if (this.#passing(reading)) patience = setTimeout(() => resolve(WAITED), BROWSER_CHALLENGE_WAIT_MS);
      });
      try {
        while (this.#passing(reading)) {
          // From the document the reading began on: one committed while it was read is the move awaited.
          if ((await Promise.race([this.#until(this.#settling.moved(reading.seen)), waited])) !== undefined)
            break;
          const settled = await Promise.race([this.#settle(reading.seen).then(() => undefined), waited]);
          if (settled === WAITED) break;
          reading = await this.#readSettled();
        }
      } catch (error) {
        // At the deadline a challenge still working on its page reads as the challenge it showed.
        if (!this.#options.signal.aborted) throw error;
      } finally {
        clearTimeout(patience);
      }
      return reading.exchange;
    } finally {
      this.#cap.end();
      this.#settling.end();
    }
  }

  /** `work`, unless the check's deadline, the body cap or a navigation that never answers ends the wait first. */
  #until<T>(work: Promise<T>): Promise<T | typeof STOPPED | typeof STALLED> {
    return Promise.race([work, this.#aborted, this.#stopped, this.#stalled]);
  }

  /** A reading of a challenge the page's script passes unattended, while the page may still move on. */
  #passing({ exchange }: Reading<D>): boolean {
    return (
      exchange.decision !== undefined &&
      this.#options.passes?.(exchange.decision, exchange.view) === true &&
      !this.#cap.passed &&
      !this.#settling.hasStalled
    );
  }

  /** Waits until the page stays on one document, from the `seen`-th on. */
  async #settle(seen: number): Promise<void> {
    const { page, session } = this.#opened;
    const settling = this.#settling;
    // A challenge's script sets its cookie and reloads: read once the page stays on one document.
    while (seen !== settling.commits && !this.#cap.passed && !settling.hasStalled) {
      seen = settling.commits;
      const loaded = await this.#until(page.waitForLoadState('load', { timeout: 0 }));
      if (loaded === STOPPED || loaded === STALLED) break;
      // A page with no script and no refresh cannot navigate itself: nothing to settle.
      if (!(await this.#until(page.evaluate(CAN_NAVIGATE_ITSELF)).catch(() => true))) break;
      await this.#until(settling.quiet(BROWSER_SETTLE_MS, seen));
    }
    // A navigation of its own that never answered is stopped: the page is read as it stands.
    if (settling.hasStalled) await Promise.race([session.send('Page.stopLoading'), this.#aborted]);
  }

  /**
   * The page as it stands, read once it settled; read again once it settles anew when it
   * moved on while being read (a challenge's script reloading it at its own time).
   */
  async #readSettled(): Promise<Reading<D>> {
    const settling = this.#settling;
    for (let tries = 1; ; tries++) {
      const seen = settling.commits;
      try {
        return { exchange: await this.#readPage(), seen };
      } catch (error) {
        const moved = settling.commits !== seen || settling.navigating;
        // A browser that died under the read is no page moving on: the transport's own retry takes it.
        const gone = this.#tab.pooled.gone() || closedUnder(error);
        if (this.#options.signal.aborted || gone || !moved || tries >= BROWSER_READ_TRIES) throw error;
        await this.#until(settling.quiet(BROWSER_SETTLE_MS, seen));
        await this.#settle(seen);
      }
    }
  }

  /** The page as it stands now, classified. */
  async #readPage(): Promise<Exchange<D>> {
    const { page } = this.#opened;
    const options = this.#options;
    const document = this.#settling.document ?? this.#first;
    const html = await Promise.race([page.content(), this.#aborted]);
    const bytes = Buffer.from(html, 'utf8');
    // The page's scripts may have written more than came: the classifier reads no more than the cap.
    const capped =
      bytes.length > options.bodyCapBytes ? bytes.subarray(0, options.bodyCapBytes).toString('utf8') : html;
    const url = page.url();
    const view: ResponseView = {
      status: document?.status() ?? 200,
      headers: document ? await Promise.race([document.allHeaders(), this.#aborted]) : {},
      url,
      redirected: url !== this.#request.url,
      body: capped,
      complete: true,
    };
    const decision = options.decide(view);
    const bytesRead = this.#cap.passed ? options.bodyCapBytes : Math.min(bytes.length, options.bodyCapBytes);
    return { view, bytesRead, decision };
  }
}
