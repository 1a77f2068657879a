/**
 * What a check concludes about one platform. Closed unions, declared once.
 */
export const OUTCOME_STATUSES = ['hit', 'miss', 'unknown', 'error', 'invalid'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/**
 * `unknown`: the platform answered, but the answer does not tell; or, for
 * `budget_exhausted`, it was not asked: our own request budget for its origin had
 * no send slot within the check's deadline, so nothing was sent.
 */
export const UNKNOWN_REASONS = [
  'waf',
  'captcha',
  'rate_limited',
  'unexpected_response',
  'budget_exhausted',
] as const;
export type UnknownReason = (typeof UNKNOWN_REASONS)[number];

/** `error`: no usable answer arrived. `blocked_destination`: a private address, refused by policy; `internal`: a bug of ours, reported rather than crashing the search. */
export const ERROR_REASONS = [
  'timeout',
  'dns',
  'connection',
  'tls',
  'blocked_destination',
  'internal',
] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];

/** `invalid`: no request was sent. */
export const INVALID_REASONS = ['username_rule', 'unsafe_username'] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

export type OutcomeReason = UnknownReason | ErrorReason | InvalidReason;

export interface Evidence {
  /** HTTP status of the answer that decided (absent when none arrived). */
  readonly httpStatus?: number;
  /** URL of the answer that decided (after redirects when they are followed). */
  readonly finalUrl?: string;
  /** The rule or marker that decided, e.g. `missing: status 404`, `shield: cloudflare-challenge`. */
  readonly rule: string;
  /** Requests sent, retries included. */
  readonly attempts: number;
  /** Bytes of body read before deciding. */
  readonly bytesRead?: number;
  /** Reused from the outcome cache: when it was first decided (ms epoch). */
  readonly cachedAt?: number;
}

export interface Outcome {
  readonly platform: string;
  readonly platformId: string;
  readonly category: string;
  /** Profile page of the username on the platform. */
  readonly url: string;
  readonly status: OutcomeStatus;
  readonly reason?: OutcomeReason;
  /** Milliseconds from the first byte sent to the decision (0 when no request was sent). */
  readonly responseTime: number;
  readonly evidence: Evidence;
}
