/**
 * What went wrong with a call to the API, classified for the page from the
 * status, the error body and the headers. Pure functions.
 */
import type { ErrorBody } from './api-types.js';

export type ApiFailure =
  | { readonly kind: 'rate_limited'; readonly message: string; readonly retryAt: number }
  | { readonly kind: 'not_found'; readonly message: string }
  | { readonly kind: 'invalid'; readonly code: string; readonly message: string }
  | { readonly kind: 'unauthorized'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly message: string; readonly retryAt?: number }
  | { readonly kind: 'server'; readonly status: number; readonly message: string }
  | { readonly kind: 'network'; readonly message: string };

export type ApiFailureKind = ApiFailure['kind'];

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly failure: ApiFailure;
  constructor(failure: ApiFailure, options?: { cause?: unknown }) {
    super(failure.message, options);
    this.failure = failure;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string';
}

/** Seconds from a Retry-After header (seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Classifies a non-2xx answer. */
export function classifyFailure(
  status: number,
  body: unknown,
  headers: { get(name: string): string | null },
  now: number,
): ApiFailure {
  const error = isErrorBody(body) ? body : undefined;
  const message = error?.error ?? `The service answered ${status}`;
  const wait = error?.retryAfter ?? retryAfterSeconds(headers.get('retry-after'), now);
  if (status === 429) return { kind: 'rate_limited', message, retryAt: now + (wait ?? 60) * 1000 };
  if (status === 404) return { kind: 'not_found', message };
  if (status === 401) return { kind: 'unauthorized', message };
  if (status === 503)
    return { kind: 'unavailable', message, ...(wait !== undefined ? { retryAt: now + wait * 1000 } : {}) };
  if (status >= 400 && status < 500) return { kind: 'invalid', code: error?.code ?? 'bad_request', message };
  return { kind: 'server', status, message };
}

export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

/** The draft-standard RateLimit-Limit / -Remaining / -Reset headers, when all are present. */
export function parseRateLimit(headers: { get(name: string): string | null }): RateLimitState | undefined {
  const read = (name: string) => {
    const raw = headers.get(name);
    if (raw === null) return undefined;
    // The draft allows a list (`10, 10;w=900`); the first item is the one that applies.
    const value = Number(raw.split(',')[0]?.split(';')[0]?.trim());
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const limit = read('ratelimit-limit');
  const remaining = read('ratelimit-remaining');
  const resetSeconds = read('ratelimit-reset');
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) return undefined;
  return { limit, remaining, resetSeconds };
}
