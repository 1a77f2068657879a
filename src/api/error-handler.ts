/**
 * The one place errors become responses: every 4xx/5xx has the body
 * `{ error, code, requestId, retryAfter?, details? }`. A 500 never carries a stack.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode, isUserscoutError } from '../errors.js';
import type { Metrics } from './metrics.js';

export interface ErrorBodyShape {
  error: string;
  code: string;
  requestId: string;
  retryAfter?: number;
  details?: Record<string, unknown>;
}

/**
 * 5xx answers that are expected load, not faults: a warning without a stack. A full
 * queue is the service refusing work it has no room for, as designed.
 */
const EXPECTED_UNDER_LOAD: ReadonlySet<ErrorCode> = new Set(['queue_full', 'pdf_busy']);

/** Fastify's own error codes, mapped to ours. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
};

function errorBody(
  request: FastifyRequest,
  code: ErrorCode | string,
  message: string,
  extra: Partial<ErrorBodyShape> = {},
): ErrorBodyShape {
  return { error: message, code, requestId: String(request.id), ...extra };
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const field = first.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  if (first.keyword === 'required')
    return `${where}: ${String((first.params as { missingProperty?: string }).missingProperty)} is required`;
  if (first.keyword === 'additionalProperties') {
    return `${where}: unknown field ${String((first.params as { additionalProperty?: string }).additionalProperty)}`;
  }
  const allowed = allowedValues(error.validation ?? [], first.instancePath);
  if (allowed.length > 0) return `${where}${field ? `.${field}` : ''} must be one of: ${allowed.join(', ')}`;
  return `${where}${field ? `.${field}` : ''} ${first.message ?? 'is invalid'}`;
}

/**
 * The values a closed field accepts, from Ajv's errors on it: a union of literals
 * fails with one `const` error per literal (then `anyOf`), an enum with one `enum`.
 */
function allowedValues(errors: NonNullable<FastifyError['validation']>, instancePath: string): string[] {
  const values: string[] = [];
  for (const e of errors) {
    if (e.instancePath !== instancePath) continue;
    const params = e.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (e.keyword === 'const') values.push(String(params.allowedValue));
    if (e.keyword === 'enum') values.push(...(params.allowedValues ?? []).map(String));
  }
  return values;
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any hook runs (a path
 * that is not valid percent-encoding, a path parameter over the length limit) gets
 * our body, and the headers the onRequest hooks would have set.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'The path is not valid percent-encoding'
      : ERROR_CODES.bad_request.message;
  void reply
    .code(400)
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .send(errorBody(request, 'bad_request', message));
}

/** `metrics`: where refused requests (429) are counted; they are not logged at info. */
export function installErrorHandler(app: FastifyInstance, metrics?: Pick<Metrics, 'refused'>): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isUserscoutError(error)) {
      if (error.status === 429) metrics?.refused.inc({ code: error.code });
      const retryAfter = typeof error.details?.retryAfter === 'number' ? error.details.retryAfter : undefined;
      if (retryAfter !== undefined && !reply.getHeader('retry-after'))
        reply.header('retry-after', String(retryAfter));
      const { retryAfter: _, ...details } = error.details ?? {};
      if (EXPECTED_UNDER_LOAD.has(error.code)) request.log.warn({ code: error.code }, error.message);
      else if (error.status >= 500) request.log.error({ err: error }, error.message);
      return reply.code(error.status).send(
        errorBody(request, error.code, error.message, {
          ...(retryAfter !== undefined ? { retryAfter } : {}),
          ...(Object.keys(details).length ? { details } : {}),
        }),
      );
    }
    if (error.validation) {
      const onId =
        error.validationContext === 'querystring' &&
        error.validation.some(
          (v) =>
            v.instancePath === '/id' || (v.params as { missingProperty?: string }).missingProperty === 'id',
        );
      const onUsername =
        error.validationContext === 'body' &&
        error.validation.some(
          (v) =>
            v.instancePath === '/username' ||
            (v.params as { missingProperty?: string }).missingProperty === 'username',
        );
      const code: ErrorCode = onId ? 'invalid_id' : onUsername ? 'invalid_username' : 'bad_request';
      return reply.code(400).send(errorBody(request, code, validationMessage(error)));
    }
    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (mapped)
      return reply
        .code(ERROR_CODES[mapped].status)
        .send(errorBody(request, mapped, ERROR_CODES[mapped].message));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .send(errorBody(request, status === 404 ? 'not_found' : 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(request, 'internal', ERROR_CODES.internal.message));
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorBody(request, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
