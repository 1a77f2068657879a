/**
 * The only outbound IO of the engine: sends a check request through undici's
 * dispatch API with a handler of its own (no Readable stream, no promise per
 * chunk), and reads the answer as it arrives, so decoding stops as soon as the
 * classifier has decided or the size cap is reached. Follows redirects when the
 * platform asks for it.
 */
import { isAscii } from 'node:buffer';
import type { Dispatcher } from 'undici';
import type { CheckRequest } from './request.js';
import type { ResponseView } from './response-view.js';

export interface ExchangeOptions {
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** Close each connection after its answer (`Connection: close`) instead of keeping it for the next request. @default false */
  readonly closeConnection?: boolean | undefined;
  /** Called with the answer so far; returns true once it has decided (reading stops). */
  readonly decided: (view: ResponseView) => boolean;
}

export interface Exchange {
  readonly view: ResponseView;
  readonly bytesRead: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A followed redirect's body is read to its end, so the connection is reused; a larger one is dropped. */
const DRAIN_MAX_BYTES = 65_536;

/**
 * The rest of a body after the classifier has decided is read and thrown away,
 * chunk by chunk, so its keep-alive connection serves the next check to that
 * host: reading tens of kilobytes costs far less CPU than the TLS handshake of a
 * new connection. Bounded: a rest larger than RELEASE_MAX_BYTES, or slower than
 * RELEASE_MAX_MS, is dropped (the connection is closed).
 */
const RELEASE_MAX_BYTES = 256 * 1024;
const RELEASE_MAX_MS = 2_000;

/**
 * The classifier reads the whole body so far each time it is asked, so it is asked
 * once per batch of chunks that arrived together (one socket read), not per chunk;
 * at the latest after this many new bytes, so a fast huge body still stops early.
 */
const DECIDE_EVERY_BYTES = 64 * 1024;

/** One hop's answer: a redirect to follow, or the exchange that ends the check. */
type Hop =
  | {
      readonly kind: 'redirect';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly location: string;
    }
  | { readonly kind: 'final'; readonly exchange: Exchange };

export async function exchange(req: CheckRequest, options: ExchangeOptions): Promise<Exchange> {
  let url = req.url;
  let method: string = req.method;
  let body = req.body;
  let redirected = false;
  for (let hop = 0; ; hop++) {
    const follow = req.redirects === 'follow' && hop < options.maxRedirects;
    const answer = await sendHop(url, method, req.headers, body, redirected, follow, options);
    if (answer.kind === 'final') return answer.exchange;
    const next = new URL(answer.location, url);
    // A redirect may only lead to http(s), never to another scheme.
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      return bodiless(answer.status, answer.headers, url, redirected, options);
    }
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    url = next.href;
    redirected = true;
  }
}

/** The exchange of an answer whose body is not read (HEAD, a redirect to another scheme). */
function bodiless(
  status: number,
  headers: Record<string, string>,
  url: string,
  redirected: boolean,
  options: ExchangeOptions,
): Exchange {
  const view = (complete: boolean): ResponseView => ({
    status,
    headers,
    url,
    redirected,
    body: '',
    complete,
  });
  // As with any answer, status and headers alone may decide; otherwise the (empty) body is complete.
  return { view: options.decided(view(false)) ? view(false) : view(true), bytesRead: 0 };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function sendHop(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  redirected: boolean,
  follow: boolean,
  options: ExchangeOptions,
): Promise<Hop> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  const target = new URL(url);
  return new Promise<Hop>((resolve, reject) => {
    const handler = new HopHandler(url, method, redirected, follow, options, resolve, reject);
    options.dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        ...(options.closeConnection ? { reset: true } : {}),
      },
      handler,
    );
  });
}

/**
 * What the handler does with body chunks: `read` them into the view; `drain` a body
 * nobody needs to its end; `release` the rest of a body after the decision.
 */
type Mode = 'read' | 'drain' | 'release';

/** undici handler of one request: status, headers and body chunks arrive as calls, read in place. */
class HopHandler implements Dispatcher.DispatchHandler {
  readonly #url: string;
  readonly #method: string;
  readonly #redirected: boolean;
  readonly #follow: boolean;
  readonly #options: ExchangeOptions;
  readonly #resolve: (hop: Hop) => void;
  readonly #reject: (error: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #mode: Mode = 'read';
  #status = 0;
  #headers: Record<string, string> = {};
  /** A followed redirect's Location, or undefined (a HEAD answer) while draining. */
  #location: string | undefined;
  #text = '';
  #decoder: TextDecoder | undefined;
  #bytesRead = 0;
  /** Body bytes read when the classifier was last asked. */
  #askedAt = 0;
  /** A decision is due once the chunks that arrived together have been read. */
  #askDue = false;
  /** Bytes drained or released (thrown away). */
  #dropped = 0;
  #releaseTimer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    method: string,
    redirected: boolean,
    follow: boolean,
    options: ExchangeOptions,
    resolve: (hop: Hop) => void,
    reject: (error: unknown) => void,
  ) {
    this.#url = url;
    this.#method = method;
    this.#redirected = redirected;
    this.#follow = follow;
    this.#options = options;
    this.#resolve = resolve;
    this.#reject = reject;
    options.signal.addEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = (): void => {
    // Before the request is under way there is nothing to stop; onRequestStart aborts it then.
    this.#controller?.abort(this.#options.signal.reason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#options.signal.aborted) controller.abort(this.#options.signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    this.#headers = flattenHeaders(headers);
    const location = this.#headers.location;
    if (this.#follow && REDIRECTS.has(statusCode) && location) {
      this.#location = location;
      this.#mode = 'drain';
      return;
    }
    if (this.#method === 'HEAD') {
      this.#mode = 'drain';
      return;
    }
    // Status and headers alone may decide (a 404 with a status rule, a redirect).
    const view = this.#view(false);
    if (this.#options.decided(view)) this.#finish(view);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#mode !== 'read') {
      this.#dropped += chunk.length;
      if (this.#mode === 'drain' && this.#dropped > DRAIN_MAX_BYTES) {
        this.#endDrain();
        this.#drop();
      } else if (this.#mode === 'release' && this.#dropped > RELEASE_MAX_BYTES) this.#drop();
      return;
    }
    const room = this.#options.bodyCapBytes - this.#bytesRead;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#bytesRead += part.length;
    this.#append(part);
    if (this.#bytesRead >= this.#options.bodyCapBytes) {
      this.#flush();
      this.#finish(this.#view(true));
    } else if (this.#bytesRead - this.#askedAt >= DECIDE_EVERY_BYTES) this.#ask();
    else if (!this.#askDue) {
      this.#askDue = true;
      queueMicrotask(this.#askLater);
    }
  }

  readonly #askLater = (): void => {
    this.#askDue = false;
    if (this.#mode === 'read' && !this.#settled) this.#ask();
  };

  /** Asks the classifier about the body so far; once it has decided, the rest is released. */
  #ask(): void {
    this.#askedAt = this.#bytesRead;
    const view = this.#view(false);
    let decided: boolean;
    try {
      decided = this.#options.decided(view);
    } catch (error) {
      // A classifier bug fails this check only, as a thrown error did with streams.
      this.#settle(() => this.#reject(error));
      this.#drop();
      return;
    }
    if (decided) this.#finish(view);
  }

  onResponseEnd(): void {
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    clearTimeout(this.#releaseTimer);
    if (this.#mode === 'drain') this.#endDrain();
    else if (this.#mode === 'read') {
      this.#flush();
      this.#finish(this.#view(true), false);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    clearTimeout(this.#releaseTimer);
    // A connection that broke while draining leaves nothing to keep; the check goes on.
    if (this.#mode === 'drain' && !this.#options.signal.aborted) this.#endDrain();
    else this.#settle(() => this.#reject(error));
  }

  #view(complete: boolean): ResponseView {
    return {
      status: this.#status,
      headers: this.#headers,
      url: this.#url,
      redirected: this.#redirected,
      body: this.#text,
      complete,
    };
  }

  // Most pages are ASCII: those chunks are copied as they are, several times faster than
  // TextDecoder. From the first chunk that is not, the decoder takes over (its state is empty then).
  #append(part: Buffer): void {
    if (!this.#decoder && isAscii(part)) this.#text += part.toString('latin1');
    else {
      this.#decoder ??= new TextDecoder('utf-8');
      this.#text += this.#decoder.decode(part, { stream: true });
    }
  }

  #flush(): void {
    if (this.#decoder) this.#text += this.#decoder.decode();
  }

  /** The check's answer is known; the rest of the body, if any, is released. */
  #finish(view: ResponseView, more = true): void {
    // The very view the classifier decided on, so its verdict is remembered (classify.ts).
    const exchange: Exchange = { view, bytesRead: this.#bytesRead };
    this.#settle(() => this.#resolve({ kind: 'final', exchange }));
    if (!more) return;
    this.#mode = 'release';
    this.#text = '';
    this.#releaseTimer = setTimeout(() => this.#drop(), RELEASE_MAX_MS);
  }

  /** A drained body ended (or was dropped): follow the redirect, or answer the HEAD request. */
  #endDrain(): void {
    this.#mode = 'release';
    if (this.#location !== undefined) {
      const hop: Hop = {
        kind: 'redirect',
        status: this.#status,
        headers: this.#headers,
        location: this.#location,
      };
      this.#settle(() => this.#resolve(hop));
    } else {
      const exchange = bodiless(this.#status, this.#headers, this.#url, this.#redirected, this.#options);
      this.#settle(() => this.#resolve({ kind: 'final', exchange }));
    }
  }

  /** Stops a body we no longer need: the connection is closed rather than read further. */
  #drop(): void {
    clearTimeout(this.#releaseTimer);
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    this.#controller?.abort(new Error('body no longer needed'));
  }

  #settle(action: () => void): void {
    if (this.#settled) return;
    this.#settled = true;
    action();
  }
}
