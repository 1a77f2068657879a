/**
 * The only outbound IO of the engine: sends a check request through undici's
 * dispatch API with a handler of its own (no Readable stream, no promise per
 * chunk), and reads the answer as it arrives, so decoding stops as soon as the
 * classifier has decided or the size cap is reached. Follows redirects when the
 * platform asks for it.
 */
import type { Dispatcher } from 'undici';
import {
  DECIDE_EVERY_BYTES,
  DRAIN_MAX_BYTES,
  RELEASE_MAX_BYTES,
  RELEASE_MAX_MS,
  SMALL_REST_BYTES,
} from '../../tuning.js';
import { BodyText } from '../verdict/body-text.js';
import type { CheckRequest } from '../verdict/request.js';
import type { ResponseView } from '../verdict/response-view.js';
import { REDIRECT_STATUSES, redirectHop } from './redirect.js';

export interface ExchangeOptions<D> {
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** Close each connection after its answer (`Connection: close`) instead of keeping it for the next request. @default false */
  readonly closeConnection?: boolean | undefined;
  /** Called with the answer so far; returns its decision once it has one (reading stops), else undefined. */
  readonly decide: (view: ResponseView) => D | undefined;
}

export interface Exchange<D> {
  readonly view: ResponseView;
  readonly bytesRead: number;
  /** What `decide` answered for `view`, when it stopped the reading; absent when the body ended first. */
  readonly decision?: D | undefined;
}

/** One hop's answer: a redirect to follow, or the exchange that ends the check. */
type Hop<D> =
  | {
      readonly kind: 'redirect';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly location: string;
    }
  | { readonly kind: 'final'; readonly exchange: Exchange<D> };

export async function exchange<D>(req: CheckRequest, options: ExchangeOptions<D>): Promise<Exchange<D>> {
  let url = req.url;
  let method: string = req.method;
  let body = req.body;
  let redirected = false;
  for (let hop = 0; ; hop++) {
    const follow = req.redirects === 'follow' && hop < options.maxRedirects;
    // The session goes with each hop to its own host only: a redirect elsewhere goes without it.
    const headers = req.session ? req.session.addTo(url, req.headers) : req.headers;
    const answer = await sendHop(url, method, headers, body, redirected, follow, options);
    if (answer.kind === 'final') return answer.exchange;
    const next = redirectHop(answer.status, answer.location, url, method, body);
    // A redirect may only lead to http(s), never to another scheme.
    if (!next) return bodiless(answer.status, answer.headers, url, redirected, options);
    ({ url, method, body } = next);
    redirected = true;
  }
}

/** The exchange of an answer whose body is not read (HEAD, a redirect to another scheme). */
function bodiless<D>(
  status: number,
  headers: Record<string, string>,
  url: string,
  redirected: boolean,
  options: ExchangeOptions<D>,
): Exchange<D> {
  const view = (complete: boolean): ResponseView => ({
    status,
    headers,
    url,
    redirected,
    body: '',
    complete,
  });
  // As with any answer, status and headers alone may decide; otherwise the (empty) body is complete.
  const partial = view(false);
  const decision = options.decide(partial);
  return decision === undefined
    ? { view: view(true), bytesRead: 0 }
    : { view: partial, bytesRead: 0, decision };
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

function sendHop<D>(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  redirected: boolean,
  follow: boolean,
  options: ExchangeOptions<D>,
): Promise<Hop<D>> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  const target = new URL(url);
  return new Promise<Hop<D>>((resolve, reject) => {
    const handler = new HopHandler(url, method, redirected, follow, options, resolve, reject);
    options.dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        // undici closes the connection after a HEAD answer unless told otherwise, in case a server
        // sends the body it should not; every HEAD check would then open a new (TLS) connection. A
        // stray body would make the next answer on the connection unparseable (a transport error),
        // never a different answer, so the connection is kept like any other.
        ...(options.closeConnection ? { reset: true } : method === 'HEAD' ? { reset: false } : {}),
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
class HopHandler<D> implements Dispatcher.DispatchHandler {
  readonly #url: string;
  readonly #method: string;
  readonly #redirected: boolean;
  readonly #follow: boolean;
  readonly #options: ExchangeOptions<D>;
  readonly #resolve: (hop: Hop<D>) => void;
  readonly #reject: (error: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #mode: Mode = 'read';
  #status = 0;
  #headers: Record<string, string> = {};
  /** A followed redirect's Location, or undefined (a HEAD answer) while draining. */
  #location: string | undefined;
  /** The body read so far, decoded when its text is first read (body-text.ts). */
  #body = new BodyText();
  #bytesRead = 0;
  /** Where the body ends (Content-Length, within the cap); unknown: never near. */
  #readsTo = Number.POSITIVE_INFINITY;
  /** Body bytes read when the classifier was last asked. */
  #askedAt = 0;
  /** A decision is due once the chunks that arrived together have been read. */
  #askDue = false;
  /** Bytes drained or released (thrown away). */
  #dropped = 0;
  #releaseTimer: NodeJS.Timeout | undefined;
  /** The body ended: the answer waits until undici has released the connection (see #settle). */
  #answerAfterRelease = false;

  constructor(
    url: string,
    method: string,
    redirected: boolean,
    follow: boolean,
    options: ExchangeOptions<D>,
    resolve: (hop: Hop<D>) => void,
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
    if (this.#follow && REDIRECT_STATUSES.has(statusCode) && location) {
      this.#location = location;
      this.#mode = 'drain';
      return;
    }
    if (this.#method === 'HEAD') {
      this.#mode = 'drain';
      return;
    }
    const length = Number(this.#headers['content-length']);
    if (Number.isSafeInteger(length) && length >= 0)
      this.#readsTo = Math.min(length, this.#options.bodyCapBytes);
    // Status and headers alone may decide (a 404 with a status rule, a redirect).
    const view = this.#view(false);
    const decision = this.#options.decide(view);
    if (decision !== undefined) this.#finish(view, decision);
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
    this.#body.push(part);
    if (this.#bytesRead >= this.#options.bodyCapBytes) {
      this.#finish(this.#view(true), undefined);
    } else if (this.#readsTo - this.#bytesRead <= SMALL_REST_BYTES) {
      // The rest is small: read to the end, classified once there (onResponseEnd).
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
    let decision: D | undefined;
    try {
      decision = this.#options.decide(view);
    } catch (error) {
      // A classifier bug fails this check only, as a thrown error did with streams.
      this.#settle(() => this.#reject(error));
      this.#drop();
      return;
    }
    if (decision !== undefined) this.#finish(view, decision);
  }

  onResponseEnd(): void {
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    clearTimeout(this.#releaseTimer);
    this.#answerAfterRelease = true;
    if (this.#mode === 'drain') this.#endDrain();
    else if (this.#mode === 'read') {
      this.#finish(this.#view(true), undefined, false);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    clearTimeout(this.#releaseTimer);
    // A connection that broke while draining leaves nothing to keep; the check goes on.
    if (this.#mode === 'drain' && !this.#options.signal.aborted) this.#endDrain();
    else this.#settle(() => this.#reject(error));
  }

  /**
   * The answer so far. Its text is decoded when first read, not here: the view of a
   * body that ended waits a turn of the event loop for its connection (#settle), and
   * its bytes wait outside the heap meanwhile, so its string is made when it is read
   * and dropped soon after. No chunk is added to `body` once the view is answered.
   */
  #view(complete: boolean): ResponseView {
    const body = this.#body;
    return {
      status: this.#status,
      headers: this.#headers,
      url: this.#url,
      redirected: this.#redirected,
      get body() {
        return body.text(complete);
      },
      complete,
    };
  }

  /** The check's answer is known; the rest of the body, if any, is released. */
  #finish(view: ResponseView, decision: D | undefined, more = true): void {
    const exchange: Exchange<D> = { view, bytesRead: this.#bytesRead, decision };
    this.#settle(() => this.#resolve({ kind: 'final', exchange }));
    if (!more) return;
    this.#mode = 'release';
    // The view answered keeps the body read so far; nothing more is added to it.
    this.#body = new BodyText();
    this.#releaseTimer = setTimeout(() => this.#drop(), RELEASE_MAX_MS);
  }

  /** A drained body ended (or was dropped): follow the redirect, or answer the HEAD request. */
  #endDrain(): void {
    this.#mode = 'release';
    if (this.#location !== undefined) {
      const hop: Hop<D> = {
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
    // undici gives a connection whose answer ended to the next request one event-loop turn
    // later (a setImmediate its parser schedules right after calling onResponseEnd). Answered
    // before that, a request that follows at once on the same origin (a hit's control, a
    // followed redirect) finds the connection still busy and opens another: a TLS handshake.
    if (this.#answerAfterRelease) queueMicrotask(() => setImmediate(action));
    else action();
  }
}
