/**
 * Every error userscout raises on purpose: one base class, a stable code per kind,
 * and one registry that maps the code to an HTTP status and a default message.
 * Codes are never reused or renamed; add new ones at the end.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, message: 'Invalid request parameters' },
  invalid_username: { status: 400, message: 'The username is not valid' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON' },
  invalid_id: { status: 400, message: 'The search id is missing or malformed' },
  unauthorized: { status: 401, message: 'The API key is unknown or revoked' },
  not_found: { status: 404, message: 'Not found' },
  search_not_found: { status: 404, message: 'No search has this id (it may have expired)' },
  payload_too_large: { status: 413, message: 'The request body is too large' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json' },
  rate_limited: { status: 429, message: 'Too many requests' },
  internal: { status: 500, message: 'Internal server error' },
  queue_full: { status: 503, message: 'Too many searches are waiting; try again shortly' },
  unavailable: { status: 503, message: 'The service is not ready; try again shortly' },
  invalid_config: { status: 500, message: 'A setting has an invalid value' },
  invalid_catalogue: { status: 500, message: 'The catalogue is not usable' },
  invalid_argument: { status: 400, message: 'An argument is not valid' },
  network_unavailable: { status: 503, message: 'The network could not be reached' },
  store_unavailable: { status: 503, message: 'The data store cannot be reached; try again shortly' },
  duplicate_id: { status: 409, message: 'A record with this id exists already' },
  headers_too_large: { status: 431, message: 'The request line or headers are too large' },
  request_timeout: { status: 408, message: 'The request did not arrive in time' },
  private_not_allowed: {
    status: 403,
    message: 'Only a professional API key can start a private search; send one, or leave private out',
  },
  api_key_required: {
    status: 401,
    message: 'Watchlists need a professional API key: send it as X-API-Key or Authorization: Bearer',
  },
  watchlist_not_found: { status: 404, message: 'No watchlist of this API key has this id' },
  delivery_not_found: { status: 404, message: 'No delivery of this watchlist has this id' },
  webhook_url_refused: { status: 400, message: 'The webhook URL is not accepted' },
  too_many_streams: { status: 429, message: 'Too many open event streams; close one first' },
  not_owner: { status: 403, message: 'This search belongs to another API key' },
  search_finished: { status: 409, message: 'The search has ended already' },
  watchlist_limit: {
    status: 409,
    message: 'This API key has as many watchlists (or watched names) as it may; delete or shorten one first',
  },
  delivery_limit: {
    status: 409,
    message: "This API key's stored webhook deliveries are all pending; wait for them to end",
  },
  transport_unavailable: {
    status: 500,
    message: 'A check transport cannot start with these network settings',
  },
  pdf_unavailable: {
    status: 503,
    message: 'PDF reports cannot be printed here: Chromium is not installed (apt-get install chromium)',
  },
  pdf_busy: { status: 503, message: 'Other PDF reports are being printed; try again shortly' },
  pdf_failed: { status: 500, message: 'The PDF report could not be printed' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class UserscoutError extends Error {
  override readonly name: string = 'UserscoutError';
  readonly code: ErrorCode;
  /** Extra machine-readable facts for the client (e.g. retryAfter seconds). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(
      message ?? ERROR_CODES[code].message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.details = options?.details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export class ConfigError extends UserscoutError {
  override readonly name = 'ConfigError';
  constructor(setting: string, value: unknown, expected: string) {
    super('invalid_config', `Setting ${setting} must be ${expected}; received ${JSON.stringify(value)}`, {
      details: { setting },
    });
  }
}

export class CatalogueError extends UserscoutError {
  override readonly name = 'CatalogueError';
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('invalid_catalogue', message, options);
  }
}

export function isUserscoutError(error: unknown): error is UserscoutError {
  return error instanceof UserscoutError;
}
