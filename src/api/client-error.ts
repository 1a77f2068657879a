/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over the
 * size limit, a malformed request line, Content-Length with Transfer-Encoding, a
 * request that does not arrive in time) get the same error body as every other
 * 4xx: `{ error, code, requestId }`, written raw on the socket, which is then closed.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import type { ErrorBodyShape } from './error-handler.js';

interface ParserError extends Error {
  readonly code?: string;
  /** llhttp's own words, e.g. "Transfer-Encoding can't be present with Content-Length". */
  readonly reason?: string;
}

/** Our code and message for an error of Node's HTTP parser. Pure. */
function parserErrorBody(error: ParserError, requestId: string): ErrorBodyShape {
  const code: ErrorCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'bad_request';
  const message =
    code === 'bad_request'
      ? `The request is not valid HTTP${error.reason ? `: ${error.reason}` : ''}`
      : ERROR_CODES[code].message;
  return { error: message, code, requestId };
}

/** The whole HTTP response for a parser error, ready to write on the socket. Pure. */
function parserErrorResponse(error: ParserError, requestId: string): string {
  const body = parserErrorBody(error, requestId);
  const status = ERROR_CODES[body.code as ErrorCode].status;
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(json)}`,
    `x-request-id: ${requestId}`,
    'x-content-type-options: nosniff',
    'connection: close',
    '',
    json,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: answers in our shape and closes the connection. */
export function clientErrorHandler(this: FastifyInstance, error: ParserError, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  // A client's mistake, not ours: logged quietly, with the id the client was given.
  this.log.debug({ requestId, parserError: error.code, reason: error.reason }, 'malformed HTTP request');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.write(parserErrorResponse(error, requestId), () => socket.destroy());
}
