/**
 * Reads a failure of impit (the impersonate transport) as a Node-style error code,
 * so transport-error.ts and the retry policy treat it as they treat undici's. Impit
 * gives a class and the Rust error's debug text; the code comes from what that text
 * names, not from a word such as "tls" that a broken connection's text also holds
 * (rustls: "peer closed connection without sending TLS close_notify"). Pure.
 */
import { BLOCKED_DESTINATION_CODE, HANDSHAKE_CLOSED_CODE, TLS_ALERT_CODE } from './transport-error.js';

/** Rust error kinds and rustls errors that mean the server's certificate was refused. */
const CERTIFICATE =
  /InvalidCertificate|invalid peer certificate|certificate verify failed|UnknownIssuer|NotValidForName/;
/** A TLS alert or protocol refusal during the handshake: the server would not talk TLS with us. */
const HANDSHAKE_REFUSED =
  /AlertReceived|HandshakeFailure|PeerIncompatible|NoApplicationProtocol|InappropriateHandshakeMessage/;
/** The server closed the connection before the handshake was done (tokio-rustls), as a shield refusing it may. */
const HANDSHAKE_CLOSED = /tls handshake eof/;
const REFUSED = /ConnectionRefused|Connection refused/;
const DNS = /dns error|failed to lookup address|Name or service not known/i;

export function impitErrorCode(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { status?: unknown } | undefined)?.status;
  const name = error instanceof Error ? error.name || error.constructor.name : '';
  // The egress gateway answers a refused destination with 403 to CONNECT (egress-gateway.ts).
  if (status === 403 || /\b403\b/.test(message)) return BLOCKED_DESTINATION_CODE;
  if (/Timeout/i.test(name)) return 'ETIMEDOUT';
  if (CERTIFICATE.test(message)) return 'ERR_TLS_CERT_INVALID';
  if (HANDSHAKE_REFUSED.test(message)) return TLS_ALERT_CODE;
  if (HANDSHAKE_CLOSED.test(message)) return HANDSHAKE_CLOSED_CODE;
  if (REFUSED.test(message)) return 'ECONNREFUSED';
  if (DNS.test(message)) return 'ENOTFOUND';
  // An end of file, a reset, a closed HTTP/2 stream: the connection broke before an answer.
  return 'ECONNRESET';
}

/**
 * The connection closed under a request it had sent, before any answer: what a pooled
 * connection looks like when the server closed it idle just as we reused it (hyper's
 * SendRequest with an end of file or a reset). Impit does not read the server's
 * keep-alive hint as undici does, so this happens; a browser sends such a request again.
 */
export function closedUnderRequest(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return (
    /\bSendRequest\b/.test(message) &&
    /UnexpectedEof|ConnectionReset|IncompleteMessage|BrokenPipe/.test(message)
  );
}

/** The error the transport throws: impit's text on one line (cut short), its code, and impit's error as the cause. */
export function impitTransportError(error: unknown): Error {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const short = message.length > 240 ? `${message.slice(0, 239)}…` : message;
  return Object.assign(new Error(`impersonate: ${short}`, { cause: error }), {
    code: impitErrorCode(error),
  });
}
