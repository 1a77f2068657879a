/**
 * What a client call can fail with: the server's own error (its stable `code`,
 * HTTP status and `requestId`), or one of the client's: `network_error` (no
 * answer), `deadline_exceeded` (waiting any longer would pass the caller's
 * deadline), `aborted` (the caller's signal), `invalid_username` (refused
 * before calling, by the server's own rule), `bad_response` (not the API's shape).
 */

export const CLIENT_ERROR_CODES = [
  'network_error',
  'deadline_exceeded',
  'aborted',
  'invalid_username',
  'bad_response',
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

export class UserscoutClientError extends Error {
  override readonly name = 'UserscoutClientError';
  /** The server's error code (e.g. `rate_limited`, `unauthorized`) or a ClientErrorCode. */
  readonly code: string;
  /** HTTP status of the answer that failed, when one came. */
  readonly status: number | undefined;
  /** The server's request id, for its log. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: string,
    message: string,
    facts: { status?: number; requestId?: string; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, facts.cause !== undefined ? { cause: facts.cause } : undefined);
    this.code = code;
    this.status = facts.status;
    this.requestId = facts.requestId;
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }
}
