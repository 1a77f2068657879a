/**
 * Whether a browser page has settled on one document. A challenge page's script sets its
 * cookie and reloads: the reload's answer takes the site's own time, longer than any fixed
 * wait, so a page is not read while a navigation of its main frame is under way. A
 * navigation that never commits (a 204, a download, one cancelled) ends when its request
 * does, and the wait with it.
 */
import type { Frame, Page, Request } from 'playwright-core';

export class PageSettling {
  readonly #page: Page;
  #commits = 0;
  /** The main frame's navigation requests not yet finished or failed. */
  readonly #pending = new Set<Request>();
  /** Looks again whether the wait in progress may end. */
  #wake: (() => void) | undefined;

  constructor(page: Page) {
    this.#page = page;
    page.on('framenavigated', this.#onNavigated);
    page.on('request', this.#onRequest);
    page.on('requestfinished', this.#onDone);
    page.on('requestfailed', this.#onDone);
  }

  /** Documents the main frame committed since this began. */
  get commits(): number {
    return this.#commits;
  }

  /**
   * Resolves once the page stayed `ms` on its document with no navigation of its own under
   * way, or as soon as a document commits after the `since`-th (at once if one did already).
   */
  quiet(ms: number, since = this.#commits): Promise<void> {
    return new Promise((resolve) => {
      let waited = false;
      const look = () => {
        if (this.#commits === since && !(waited && this.#pending.size === 0)) return;
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(() => {
        waited = true;
        look();
      }, ms);
      this.#wake = look;
      look();
    });
  }

  end(): void {
    this.#wake = undefined;
    this.#page.off('framenavigated', this.#onNavigated);
    this.#page.off('request', this.#onRequest);
    this.#page.off('requestfinished', this.#onDone);
    this.#page.off('requestfailed', this.#onDone);
  }

  readonly #onNavigated = (frame: Frame) => {
    if (frame !== this.#page.mainFrame()) return;
    this.#commits++;
    this.#wake?.();
  };

  readonly #onRequest = (request: Request) => {
    if (request.isNavigationRequest() && this.#ofMainFrame(request)) this.#pending.add(request);
  };

  readonly #onDone = (request: Request) => {
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
