/**
 * The only outbound IO of the engine: sends a check request with undici and
 * reads the answer incrementally, so reading stops as soon as the classifier
 * has decided or the size cap is reached.
 */
import { isAscii } from 'node:buffer';
import { type Dispatcher, request } from 'undici';
import type { CheckRequest } from './request.js';
import type { ResponseView } from './response-view.js';

export interface ExchangeOptions {
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** Called with the answer so far; returns true once it has decided (reading stops). */
  readonly decided: (view: ResponseView) => boolean;
}

export interface Exchange {
  readonly view: ResponseView;
  readonly bytesRead: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export async function exchange(req: CheckRequest, options: ExchangeOptions): Promise<Exchange> {
  let url = req.url;
  let method: string = req.method;
  let body = req.body;
  let redirected = false;
  for (let hop = 0; ; hop++) {
    const response = await request(url, {
      dispatcher: options.dispatcher,
      method: method as Dispatcher.HttpMethod,
      headers: req.headers,
      body,
      signal: options.signal,
    });
    const headers = flattenHeaders(response.headers);
    const location = headers.location;
    if (
      req.redirects === 'follow' &&
      REDIRECTS.has(response.statusCode) &&
      location &&
      hop < options.maxRedirects
    ) {
      await drain(response.body);
      const next = new URL(location, url);
      // A redirect may only lead to http(s), never to another scheme.
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        return readBody(response.statusCode, headers, url, redirected, emptyBody(), options);
      }
      if (
        response.statusCode === 303 ||
        ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
      }
      url = next.href;
      redirected = true;
      continue;
    }
    if (method === 'HEAD') {
      await drain(response.body);
      return readBody(response.statusCode, headers, url, redirected, emptyBody(), options);
    }
    return readBody(response.statusCode, headers, url, redirected, response.body, options);
  }
}

type BodyStream = AsyncIterable<Buffer> &
  Partial<Pick<NodeJS.ReadableStream, 'on' | 'resume'>> & {
    destroy?: () => void;
    iterator?: (options: { destroyOnReturn: boolean }) => AsyncIterable<Buffer>;
  };

async function* emptyBody(): AsyncIterable<Buffer> {}

async function readBody(
  status: number,
  headers: Record<string, string>,
  url: string,
  redirected: boolean,
  stream: BodyStream,
  options: ExchangeOptions,
): Promise<Exchange> {
  let decoder: TextDecoder | undefined;
  let text = '';
  // Most pages are ASCII: those chunks are copied as they are, several times faster than
  // TextDecoder. From the first chunk that is not, the decoder takes over (its state is empty then).
  const append = (part: Buffer): void => {
    if (!decoder && isAscii(part)) text += part.toString('latin1');
    else {
      decoder ??= new TextDecoder('utf-8');
      text += decoder.decode(part, { stream: true });
    }
  };
  const flush = (): void => {
    if (decoder) text += decoder.decode();
  };
  let bytesRead = 0;
  const view = (complete: boolean): ResponseView => ({
    status,
    headers,
    url,
    redirected,
    body: text,
    complete,
  });
  // Status and headers alone may decide (a 404 with a status rule, a redirect).
  if (options.decided(view(false))) {
    release(stream);
    return { view: view(false), bytesRead };
  }
  let finished = false;
  // Leaving the loop early must not destroy the body: `release` reads the rest so the connection is reused.
  const chunks = stream.iterator?.({ destroyOnReturn: false }) ?? stream;
  try {
    for await (const chunk of chunks) {
      const room = options.bodyCapBytes - bytesRead;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytesRead += part.length;
      append(part);
      if (bytesRead >= options.bodyCapBytes) {
        flush();
        return { view: view(true), bytesRead };
      }
      if (options.decided(view(false))) return { view: view(false), bytesRead };
    }
    finished = true;
    flush();
    return { view: view(true), bytesRead };
  } finally {
    if (!finished) release(stream);
  }
}

/** Reads a small body we do not need (a redirect's), so the connection can be reused; a large one is dropped. */
async function drain(
  stream: AsyncIterable<Buffer> & Partial<Pick<NodeJS.ReadableStream, 'on'>> & { destroy?: () => void },
): Promise<void> {
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > 65_536) {
        discard(stream);
        return;
      }
    }
  } catch {
    // The connection broke while draining: nothing to keep.
  }
}

/**
 * The rest of a body read after the classifier has decided, so its keep-alive
 * connection serves the next check to that host: reading tens of kilobytes
 * costs far less CPU than the TLS handshake of a new connection. Bounded: a
 * rest larger than RELEASE_MAX_BYTES, or slower than RELEASE_MAX_MS, is dropped.
 */
const RELEASE_MAX_BYTES = 256 * 1024;
const RELEASE_MAX_MS = 2_000;

function release(stream: BodyStream): void {
  if (!stream.on || !stream.resume) {
    discard(stream);
    return;
  }
  let size = 0;
  const timer = setTimeout(() => discard(stream), RELEASE_MAX_MS);
  const done = () => clearTimeout(timer);
  stream.on('error', done);
  stream.on('end', done);
  stream.on('close', done);
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > RELEASE_MAX_BYTES) {
      done();
      discard(stream);
    }
  });
  stream.resume();
}

/** Stops a body we no longer need; undici reports that as an 'error' event, which is expected here. */
function discard(stream: Partial<Pick<NodeJS.ReadableStream, 'on'>> & { destroy?: () => void }): void {
  stream.on?.('error', () => undefined);
  stream.destroy?.();
}
