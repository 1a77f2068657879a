/**
 * The body cap in the browser. Chromium reads a page's answers itself, so each answer's
 * body is counted as it arrives (the DevTools protocol's Network.dataReceived: decoded
 * bytes, as http.ts counts them behind its decompression) and the page's loading is
 * stopped once one answer passes the cap: its connection is closed rather than read on,
 * as http.ts closes one. Chromium reads on while the count travels to this process, so it
 * stops some way past the cap (megabytes on a busy machine), not at it; what the page
 * shows is then cut to the cap (browser.ts). A subresource (a script) may be reported in
 * large steps, at worst once it has all come: the cap then stops the page after it.
 */
import type { CDPSession } from 'playwright-core';

type DataReceived = { readonly requestId: string; readonly dataLength: number };

export class BodyCapWatch {
  readonly #session: CDPSession;
  readonly #capBytes: number;
  /** Body bytes received so far, by request. */
  readonly #bytes = new Map<string, number>();
  #passed = false;
  #onPassed: (() => void) | undefined;
  /** Settles once an answer passed the cap and the page's loading was stopped (or that failed). */
  readonly stopped: Promise<void>;

  /** Counts the answers of `session`'s page from now on, until `end`; Network must be enabled on it. */
  constructor(session: CDPSession, capBytes: number) {
    this.#session = session;
    this.#capBytes = capBytes;
    this.stopped = new Promise<void>((resolve) => {
      this.#onPassed = resolve;
    });
    session.on('Network.dataReceived', this.#onData);
  }

  /** Whether an answer passed the cap: the page stands as it was when its loading stopped. */
  get passed(): boolean {
    return this.#passed;
  }

  readonly #onData = (event: DataReceived): void => {
    if (this.#passed) return;
    const bytes = (this.#bytes.get(event.requestId) ?? 0) + event.dataLength;
    this.#bytes.set(event.requestId, bytes);
    if (bytes <= this.#capBytes) return;
    this.#passed = true;
    const done = this.#onPassed;
    // A page already gone has nothing left to stop.
    this.#session.send('Page.stopLoading').then(done, done);
  };

  end(): void {
    this.#session.off('Network.dataReceived', this.#onData);
  }
}
