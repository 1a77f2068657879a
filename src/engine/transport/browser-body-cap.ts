/**
 * The body cap in the browser. Chromium reads a page's answers itself, so each answer's
 * body is counted as it arrives (the DevTools protocol's Network.dataReceived: decoded
 * bytes, as http.ts counts them behind its decompression) and the page's loading is
 * stopped once a document passes the cap, or its subresources together pass
 * BROWSER_SUBRESOURCE_CAP_FACTOR times it (tuning.ts): its connections are closed rather
 * than read on, as http.ts closes one. Chromium reads on while the count travels to this
 * process, so it stops some way past the cap (megabytes on a busy machine), not at it; what
 * the page shows is then cut to the cap (browser.ts). A subresource (a script) may be
 * reported in large steps, at worst once it has all come: the cap then stops the page after it.
 */
import type { CDPSession } from 'playwright-core';
import { BROWSER_SUBRESOURCE_CAP_FACTOR } from '../../tuning.js';

type DataReceived = { readonly requestId: string; readonly dataLength: number };
type ResponseReceived = { readonly requestId: string; readonly type?: string };

/** What the watch needs of a DevTools session: its events, and a command to stop the page. */
export type CapSession = Pick<CDPSession, 'on' | 'off' | 'send'>;

export class BodyCapWatch {
  readonly #session: CapSession;
  readonly #capBytes: number;
  /** Body bytes received so far, by document request. */
  readonly #documents = new Map<string, number>();
  /** Requests known to be subresources (not a document). */
  readonly #subresources = new Set<string>();
  /** Body bytes of the page's subresources together. */
  #subresourceBytes = 0;
  #passed = false;
  #onPassed: (() => void) | undefined;
  /** Settles once an answer passed the cap and the page's loading was stopped (or that failed). */
  readonly stopped: Promise<void>;

  /** Counts the answers of `session`'s page from now on, until `end`; Network must be enabled on it. */
  constructor(session: CapSession, capBytes: number) {
    this.#session = session;
    this.#capBytes = capBytes;
    this.stopped = new Promise<void>((resolve) => {
      this.#onPassed = resolve;
    });
    session.on('Network.responseReceived', this.#onResponse);
    session.on('Network.dataReceived', this.#onData);
  }

  /** Whether an answer passed the cap: the page stands as it was when its loading stopped. */
  get passed(): boolean {
    return this.#passed;
  }

  readonly #onResponse = (event: ResponseReceived): void => {
    // A request whose kind is not known is counted as a document: the stricter cap.
    if (event.type !== undefined && event.type !== 'Document') this.#subresources.add(event.requestId);
  };

  readonly #onData = (event: DataReceived): void => {
    if (this.#passed) return;
    if (this.#subresources.has(event.requestId)) {
      this.#subresourceBytes += event.dataLength;
      if (this.#subresourceBytes <= this.#capBytes * BROWSER_SUBRESOURCE_CAP_FACTOR) return;
    } else {
      const bytes = (this.#documents.get(event.requestId) ?? 0) + event.dataLength;
      this.#documents.set(event.requestId, bytes);
      if (bytes <= this.#capBytes) return;
    }
    this.#passed = true;
    const done = this.#onPassed;
    // A page already gone has nothing left to stop.
    this.#session.send('Page.stopLoading').then(done, done);
  };

  end(): void {
    this.#session.off('Network.responseReceived', this.#onResponse);
    this.#session.off('Network.dataReceived', this.#onData);
  }
}
