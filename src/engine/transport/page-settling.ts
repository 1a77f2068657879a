/**
 * Whether a browser page has settled on one document. A challenge page's script sets its
 * cookie and reloads: the reload's answer takes the site's own time, longer than any fixed
 * wait, so a page is not read while a navigation of its main frame is under way. A
 * navigation that never commits (a 204, a download, one cancelled) ends when its request
 * does, and the wait with it; its answer is not the page's. One the page started that gets no
 * answer at all stalls the page after a while, for the caller to stop it and read what is there.
 */
import type { Frame, Page, Request, Response } from 'playwright-core';

export class PageSettling {
  readonly #page: Page;
  #commits = 0;
  /** The main frame's navigation requests not yet finished or failed, a redirect's hop until the next is asked. */
  readonly #pending = new Set<Request>();
  /** Ends the wait in progress: looks again whether it may end, or gives it up (`end`). */
  #wake: ((giveUp?: boolean) => void) | undefined;
  /** The main frame's latest navigation answer not yet committed, and the one whose document it shows. */
  #answered: Response | undefined;
  #document: Response | undefined;

  /** Navigations the page started itself, each until its answer came: past `stallMs` unanswered, one stalls the page. */
  readonly #waiting = new Map<Request, NodeJS.Timeout>();
  readonly #stallMs: number;
  #stall: (() => void) | undefined;
  #hasStalled = false;
  /** Resolves once a navigation the page started itself went `stallMs` without an answer. */
  readonly stalled: Promise<void>;

  constructor(page: Page, stallMs: number) {
    this.#page = page;
    this.#stallMs = stallMs;
    this.stalled = new Promise((resolve) => {
      this.#stall = () => {
        this.#hasStalled = true;
        resolve();
      };
    });
    page.on('framenavigated', this.#onNavigated);
    page.on('request', this.#onRequest);
    page.on('requestfinished', this.#onFinished);
    page.on('requestfailed', this.#onFailed);
    page.on('response', this.#onResponse);
  }

  /** The answer whose document the main frame shows: a navigation's answer once it committed. */
  get document(): Response | undefined {
    return this.#document;
  }

  /** Whether a navigation the page started itself went unanswered too long (`stalled` resolved). */
  get hasStalled(): boolean {
    return this.#hasStalled;
  }

  /** Whether a navigation of the main frame is under way (asked, not yet finished or failed). */
  get navigating(): boolean {
    return this.#pending.size > 0;
  }

  /** Documents the main frame committed since this began. */
  get commits(): number {
    return this.#commits;
  }

  /**
   * Resolves once the page stayed `ms` on its document with no navigation of its own under
   * way, or as soon as a document commits after the `since`-th (at once if one did already).
   */
  quiet(ms: number, since: number): Promise<void> {
    return new Promise((resolve) => {
      let waited = false;
      const look = (giveUp = false) => {
        if (!giveUp && this.#commits === since && !(waited && this.#pending.size === 0)) return;
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = Number.isFinite(ms)
        ? setTimeout(() => {
            waited = true;
            look();
          }, ms)
        : undefined;
      this.#wake = look;
      look();
    });
  }

  /** Resolves once a document commits after the `since`-th (at once if one did already). */
  moved(since: number): Promise<void> {
    return this.quiet(Number.POSITIVE_INFINITY, since);
  }

  end(): void {
    this.#wake?.(true);
    for (const timer of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    this.#page.off('framenavigated', this.#onNavigated);
    this.#page.off('request', this.#onRequest);
    this.#page.off('requestfinished', this.#onFinished);
    this.#page.off('requestfailed', this.#onFailed);
    this.#page.off('response', this.#onResponse);
  }

  readonly #onNavigated = (frame: Frame) => {
    if (frame !== this.#page.mainFrame()) return;
    // A document commits once its answer's headers came, at that answer's address; a
    // same-document navigation (a fragment, pushState) has no answer of its own.
    if (this.#answered && this.#answered.url() === frame.url()) {
      this.#document = this.#answered;
      this.#answered = undefined;
    }
    this.#commits++;
    this.#wake?.();
  };

  readonly #onRequest = (request: Request) => {
    if (!request.isNavigationRequest() || !this.#ofMainFrame(request)) return;
    // The hop a redirect led here from is kept until now: its navigation went on.
    const from = request.redirectedFrom();
    if (from) this.#pending.delete(from);
    this.#pending.add(request);
    // The check's own navigation has the check's deadline; one the page started after it, this.
    if (this.#commits > 0)
      this.#waiting.set(
        request,
        setTimeout(() => this.#stall?.(), this.#stallMs),
      );
  };

  readonly #onResponse = (response: Response) => {
    const request = response.request();
    if (!request.isNavigationRequest() || !this.#ofMainFrame(request)) return;
    this.#answered = response;
    clearTimeout(this.#waiting.get(request));
    this.#waiting.delete(request);
  };

  readonly #onFinished = (request: Request) => {
    // A redirect's hop finishes before its next request is told: the navigation goes on.
    const status = request.existingResponse()?.status() ?? 0;
    if (status >= 300 && status < 400) return;
    if (this.#pending.delete(request)) this.#wake?.();
  };

  readonly #onFailed = (request: Request) => {
    if (this.#answered?.request() === request) this.#answered = undefined;
    clearTimeout(this.#waiting.get(request));
    this.#waiting.delete(request);
    if (this.#pending.delete(request)) this.#wake?.();
  };

  #ofMainFrame(request: Request): boolean {
    try {
      return request.frame() === this.#page.mainFrame();
    } catch {
      // A service worker's request has no frame (the browser transport blocks them anyway).
      return false;
    }
  }
}
