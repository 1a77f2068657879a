/**
 * What the service's log never writes: wherever a request's headers, a session or a
 * credential could be logged, pino writes "[redacted]" instead. Operator sessions are
 * also held in classes that serialise as "[redacted]" (engine/session.ts); these paths
 * are the second line, for headers and settings logged as plain objects.
 */
import type { FastifyServerOptions } from 'fastify';
import { REDACTED } from '../engine/verdict/session.js';

export const LOG_REDACT_PATHS: readonly string[] = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  '*.headers.cookie',
  '*.headers.authorization',
  '*.headers["set-cookie"]',
  'session',
  'sessions',
  '*.session',
  '*.sessions',
  'config.sessions',
  'config.apiKey',
  'config.metricsToken',
];

/** The service's logger setting with the redaction added (false and instances stay as given). */
export function redactedLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === true) return { redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED } };
  if (!logger || typeof logger !== 'object') return logger;
  const given = (logger as { redact?: unknown }).redact;
  const paths = Array.isArray(given) ? given : ((given as { paths?: string[] } | undefined)?.paths ?? []);
  return { ...logger, redact: { paths: [...LOG_REDACT_PATHS, ...paths], censor: REDACTED } };
}
