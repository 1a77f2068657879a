/**
 * Reads a failure of the HTTP exchange: its outcome reason, its evidence text,
 * its error codes, and whether the server refused our TLS handshake. Pure.
 */
import type { ErrorReason } from '../verdict/outcome.js';

export const BLOCKED_DESTINATION_CODE = 'EUSERSCOUT_BLOCKED_DESTINATION';

const TIMEOUT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ABORT_ERR',
]);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA']);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'CERT_', 'ERR_OSSL_'];
const TLS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
  'HOSTNAME_MISMATCH',
]);

/** impit's code for a handshake the server refused: an alert, or a protocol it would not speak with us (impit-error.ts). */
export const TLS_ALERT_CODE = 'ERR_SSL_HANDSHAKE_FAILURE';
/** impit's code for a connection the server closed before the TLS handshake was done (impit-error.ts). */
export const HANDSHAKE_CLOSED_CODE = 'EUSERSCOUT_HANDSHAKE_CLOSED';
/**
 * A fatal alert the server sent in the handshake, as Node names OpenSSL's reasons: the
 * prefix follows OpenSSL's wording (`ERR_SSL_SSLV3_ALERT_…` on Node 20, `ERR_SSL_SSL/TLS_ALERT_…` on 24).
 */
const ALERT = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13|SSL\/TLS)_ALERT_/;
/** OpenSSL's words for an alert the server sent; Node gives such an alert code EPROTO when it came during a write. */
const ALERT_TEXT = /\bSSL alert number \d+/;
/** A certificate our side refused: never the server refusing us. */
const CERTIFICATE =
  /^(?:CERT_|ERR_TLS_CERT|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT|UNABLE_TO_|HOSTNAME_MISMATCH)/;
/** Node's words, with code ECONNRESET, for a connection closed before the handshake was done (tls.connect). */
const CLOSED_IN_HANDSHAKE = /disconnected before secure TLS connection was established/;

interface Link {
  readonly code?: unknown;
  readonly name?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The error and its causes, outermost first: undici wraps socket errors. */
function chain(error: unknown): Link[] {
  const out: Link[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    out.push(current as Link);
    current = (current as Link).cause;
  }
  return out;
}

/** The codes of the error and its causes; an abort or timeout signal's reason reads ABORT_ERR. */
function codes(error: unknown): string[] {
  const out: string[] = [];
  for (const { code, name } of chain(error)) {
    if (typeof code === 'string') out.push(code);
    if (name === 'TimeoutError' || name === 'AbortError') out.push('ABORT_ERR');
  }
  return out;
}

/**
 * The server refused our TLS handshake: it sent an alert, or closed the connection before
 * the handshake was done, as a shield refusing a client's ClientHello does. Not a
 * certificate we refused, a timeout, a name that did not resolve or a refused TCP
 * connection; nor a reset (RST) in the handshake, which Node tells from no other reset.
 */
export function handshakeRefused(error: unknown): boolean {
  const alertUnderWrite = chain(error).some(
    ({ code, message }) => code === 'EPROTO' && typeof message === 'string' && ALERT_TEXT.test(message),
  );
  const all = codes(error).filter((c) => !(alertUnderWrite && c === 'EPROTO'));
  const other = (c: string) =>
    CERTIFICATE.test(c) || TLS.has(c) || DNS.has(c) || TIMEOUT.has(c) || c === BLOCKED_DESTINATION_CODE;
  if (all.some(other)) return false;
  if (alertUnderWrite) return true;
  if (all.some((c) => ALERT.test(c) || c === TLS_ALERT_CODE || c === HANDSHAKE_CLOSED_CODE)) return true;
  return chain(error).some(
    ({ code, message }) =>
      code === 'ECONNRESET' && typeof message === 'string' && CLOSED_IN_HANDSHAKE.test(message),
  );
}

export function transportErrorReason(error: unknown): ErrorReason {
  const all = codes(error);
  if (all.includes(BLOCKED_DESTINATION_CODE)) return 'blocked_destination';
  if (all.some((c) => TLS.has(c) || TLS_PREFIXES.some((p) => c.startsWith(p)))) return 'tls';
  if (all.some((c) => DNS.has(c))) return 'dns';
  if (all.some((c) => TIMEOUT.has(c))) return 'timeout';
  return 'connection';
}

/** Short text for the evidence: the first code and message. */
export function describeTransportError(error: unknown): string {
  const all = codes(error);
  const message = error instanceof Error ? error.message : String(error);
  return all[0] ? `${all[0]}: ${message}` : message;
}

/** The error, or one of its causes, has one of these codes. */
export function hasErrorCode(error: unknown, wanted: readonly string[]): boolean {
  return codes(error).some((c) => wanted.includes(c));
}
