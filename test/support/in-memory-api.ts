/**
 * The API in memory: a service's app registered under an origin of its own (`.invalid`, never
 * resolved) answers requests to that origin through `app.inject`, as a fetch Response, so a test
 * reaches it with the same helpers it would use over HTTP, and without a socket of its own.
 * Not for what needs the socket: inject answers once the response has ended (no event stream,
 * no client disconnect), and every request comes from 127.0.0.1.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Page } from 'playwright-core';

const apps = new Map<string, FastifyInstance>();

/** Registers `app` and returns its base URL; requests to it through `send` go to `app.inject`. */
export function inMemoryOrigin(app: FastifyInstance): string {
  const origin = `http://api-${apps.size + 1}.userscout.invalid`;
  apps.set(origin, app);
  return origin;
}

/** fetch, except that a registered origin is answered in memory. */
export function send(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  if (input instanceof Request) return fetch(input, init);
  const target = new URL(input);
  const app = apps.get(target.origin);
  return app ? injected(app, target, init) : fetch(input, init);
}

async function injected(app: FastifyInstance, url: URL, init: RequestInit): Promise<Response> {
  init.signal?.throwIfAborted();
  const headers = Object.fromEntries(new Headers(init.headers));
  const method = (init.method ?? 'GET').toUpperCase() as NonNullable<InjectOptions['method']>;
  const answer = app.inject({
    method,
    url: url.pathname + url.search,
    headers: { host: url.host, ...headers },
    ...(init.body == null ? {} : { payload: payload(init.body) }),
  });
  const r = await (init.signal ? abortable(answer, init.signal) : answer);
  const out = new Headers();
  for (const [name, value] of Object.entries(r.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
  }
  // Response takes no body with these, as fetch gives none.
  const empty = method === 'HEAD' || r.statusCode === 204 || r.statusCode === 304;
  return new Response(empty ? null : new Uint8Array(r.rawPayload), { status: r.statusCode, headers: out });
}

function payload(body: BodyInit): string | Buffer {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError(`an in-memory request takes a string or bytes as its body, not ${typeof body}`);
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Serves a page's requests to registered origins in memory, so the browser loads what the API answers. */
export async function routeInMemory(page: Page): Promise<void> {
  for (const origin of apps.keys())
    await page.route(`${origin}/**`, async (route) => {
      const request = route.request();
      const body = request.postDataBuffer();
      const r = await send(request.url(), {
        method: request.method(),
        headers: await request.allHeaders(),
        ...(body ? { body: new Uint8Array(body) } : {}),
      });
      await route.fulfill({
        status: r.status,
        headers: Object.fromEntries(r.headers),
        body: Buffer.from(await r.arrayBuffer()),
      });
    });
}
