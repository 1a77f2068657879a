/**
 * What a check concludes about one platform: the closed unions, the `Outcome`
 * shape, the constructors every outcome is built with, and the order outcomes
 * are listed in. Only type imports, so the web page bundles it.
 */
import type { Category } from '../../catalogue/categories.js';
import type { Platform, Transport } from '../../catalogue/platform.js';
import type { Profile } from './profile.js';

export const OUTCOME_STATUSES = ['hit', 'miss', 'unknown', 'error', 'invalid'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/**
 * `unknown`: the platform answered, but the answer does not tell; or, for
 * `budget_exhausted`, it was not asked: our own request budget for its origin had
 * no send slot within the check's deadline, so nothing was sent. `rule_drift`: the
 * answer read as a hit, but so did a control name that cannot exist (or the answer
 * could not be told from the control's): the platform's rule no longer tells (control.ts).
 * `needs_browser`: the platform's checks go through a browser, and none is installed (nothing
 * sent); or, escalating, its defence stood through every other transport and only the browser,
 * not installed, was left to try.
 * `session_required`: the platform needs an operator's session, and none is configured.
 * `no_miss_rule`: the answer was not a hit, and the platform's entry is hit-only (it has no
 * not-found answer to read a miss from), so "not there" cannot be told.
 */
export const UNKNOWN_REASONS = [
  'waf',
  'captcha',
  'rate_limited',
  'unexpected_response',
  'budget_exhausted',
  'rule_drift',
  'needs_browser',
  'session_required',
  'no_miss_rule',
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
  /** The text or regex marker that decided, with about 60 characters of context on each side. */
  readonly snippet?: string;
  /** The control check a hit was compared with: its name, what it read and when (control.ts). */
  readonly control?: string;
  /** The transport that got the answer, when not `http`: the platform's own, or one escalated to (escalation.ts). */
  readonly transport?: Transport;
}

export interface Outcome {
  readonly platform: string;
  readonly platformId: string;
  readonly category: Category;
  /** Profile page of the username on the platform. */
  readonly url: string;
  readonly status: OutcomeStatus;
  readonly reason?: OutcomeReason;
  /** Milliseconds from the first byte sent to the decision (0 when no request was sent). */
  readonly responseTime: number;
  readonly evidence: Evidence;
  /** A hit's profile details, as its page gave them (profile-extract.ts). */
  readonly profile?: Profile;
  /** Platform ids of hits whose profiles link to this account (linked-accounts.ts). */
  readonly linkedFrom?: string[];
}

/** What an outcome names of its platform. */
export type OutcomeSubject = Pick<Platform, 'name' | 'id' | 'category'>;

/** How a check that got an answer decided. */
export interface AnsweredDecision {
  readonly status: Extract<OutcomeStatus, 'hit' | 'miss' | 'unknown'>;
  readonly reason?: UnknownReason | undefined;
  readonly rule: string;
  readonly snippet?: string | undefined;
}

/** What a check spent: milliseconds to the decision and requests sent (0 and 0 when none was sent). */
export interface Spent {
  readonly responseTime: number;
  readonly attempts: number;
}

const NOTHING_SENT: Spent = { responseTime: 0, attempts: 0 };

function subject(platform: OutcomeSubject, url: string) {
  return { platform: platform.name, platformId: platform.id, category: platform.category, url };
}

/** A check that got an answer, decided by `decision`. */
export function answeredOutcome(
  platform: OutcomeSubject,
  url: string,
  decision: AnsweredDecision,
  answer: Spent & { readonly httpStatus: number; readonly finalUrl: string; readonly bytesRead: number },
): Outcome {
  // Written out rather than spread: one of these per check. The keys keep their order (stored as JSON).
  const { httpStatus, finalUrl, attempts, bytesRead } = answer;
  const { status, reason, rule, snippet } = decision;
  const evidence: Evidence =
    snippet === undefined
      ? { httpStatus, finalUrl, rule, attempts, bytesRead }
      : { httpStatus, finalUrl, rule, attempts, bytesRead, snippet };
  const { name, id, category } = platform;
  const responseTime = answer.responseTime;
  return reason
    ? { platform: name, platformId: id, category, url, status, reason, responseTime, evidence }
    : { platform: name, platformId: id, category, url, status, responseTime, evidence };
}

/** An outcome without an answer to read: only a rule says why, and what was spent. */
function withoutAnswer(
  platform: OutcomeSubject,
  url: string,
  status: 'error' | 'unknown' | 'invalid',
  reason: OutcomeReason,
  rule: string,
  spent: Spent,
): Outcome {
  return {
    ...subject(platform, url),
    status,
    reason,
    responseTime: spent.responseTime,
    evidence: { rule, attempts: spent.attempts },
  };
}

/** A check that got no usable answer; `rule` says why. */
export function errorOutcome(
  platform: OutcomeSubject,
  url: string,
  reason: ErrorReason,
  rule: string,
  spent: Spent = NOTHING_SENT,
): Outcome {
  return withoutAnswer(platform, url, 'error', reason, rule, spent);
}

/** A check not sent because our own side could not tell in time (the request budget); `rule` says why. */
export function unsentUnknownOutcome(
  platform: OutcomeSubject,
  url: string,
  reason: UnknownReason,
  rule: string,
): Outcome {
  return withoutAnswer(platform, url, 'unknown', reason, rule, NOTHING_SENT);
}

/**
 * A check whose request was refused before any answer, as a defence refuses (a TLS handshake
 * the server would not finish): `unknown`, `rule` naming the refusal, with what was spent.
 */
export function refusedOutcome(
  platform: OutcomeSubject,
  url: string,
  reason: UnknownReason,
  rule: string,
  spent: Spent,
): Outcome {
  return withoutAnswer(platform, url, 'unknown', reason, rule, spent);
}

/** A check never sent because the username breaks a rule; `rule` says which. */
export function invalidOutcome(
  platform: OutcomeSubject,
  url: string,
  reason: InvalidReason,
  rule: string,
): Outcome {
  return withoutAnswer(platform, url, 'invalid', reason, rule, NOTHING_SENT);
}

// One collator for every comparison: localeCompare with options builds one per call, which
// was half the CPU of a poll that sorts a few hundred results. Made at the first comparison,
// not at import: it maps ~2.5 MB of ICU's data and code, which a CLI search needs only once
// its checks are over (to list results) and so kept out of its peak memory.
let nameCollator: Intl.Collator | undefined;

/** The one order of platform names everywhere results are listed: alphabetical, ignoring case and accents. */
export function compareNames(a: string, b: string): number {
  nameCollator ??= new Intl.Collator('en', { sensitivity: 'base' });
  return nameCollator.compare(a, b);
}

/** Outcomes in the order results are listed: by platform name (see `compareNames`). */
export function byPlatformName(a: Pick<Outcome, 'platform'>, b: Pick<Outcome, 'platform'>): number {
  return compareNames(a.platform, b.platform);
}
