/**
 * What a site's answer says about its rate limit, read from its headers. Pure:
 * the clock is an argument. Three families of headers are read:
 * - `Retry-After`: seconds, or an HTTP date;
 * - the IETF draft's `RateLimit` and `RateLimit-Policy`, in the structured-field form
 *   (`"default";r=0;t=10` and `"default";q=100;w=60`) and the older ones
 *   (`RateLimit-Limit`/`-Remaining`/`-Reset`, `RateLimit-Policy: 100;w=60`,
 *   `RateLimit: limit=100, remaining=0, reset=10`);
 * - `X-RateLimit-Limit`/`-Remaining`/`-Reset` (reset as seconds to wait, or as the
 *   Unix time of the reset).
 * A value that does not read is ignored, as if absent: a site's typo never fails a check.
 */

/** Lower-case header names, repeated headers joined with ', ' (as ResponseView holds them). */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

export interface RateSignals {
  /** How long the site asks us to wait before the next request (ms): Retry-After, or the reset of a spent quota. */
  readonly waitMs?: number;
  /** The rate the site states it allows (requests a second): the strictest of its stated policies. */
  readonly statedPerSecond?: number;
  /** Whether any rate-limit header was read (a 503 without one is an outage, not a limit). */
  readonly present: boolean;
}

/** Past this, a reset is a Unix time in seconds rather than seconds to wait (about 2001). */
const UNIX_SECONDS_AFTER = 1e9;
/** Past this, a reset is a Unix time in milliseconds. */
const UNIX_MS_AFTER = 1e12;
/** Longest wait read from a header (a day): beyond it the value is taken as unreadable. */
const MAX_WAIT_MS = 86_400_000;

/** A whole or decimal number of at least 0, or undefined. */
function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

/** A wait in ms, within a day, or undefined. */
function waitOf(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms > MAX_WAIT_MS) return undefined;
  return Math.max(0, Math.round(ms));
}

/** Parses Retry-After (seconds or an HTTP date) into ms from `nowMs` (wall clock); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its weekday: a bare number with a dot or sign is not one.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Seconds to wait, or a Unix time (seconds or ms) of the reset, as ms from `nowMs`. */
function resetMs(value: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (value >= UNIX_MS_AFTER) return waitOf(value - nowMs);
  if (value >= UNIX_SECONDS_AFTER) return waitOf(value * 1000 - nowMs);
  return waitOf(value * 1000);
}

/** One member of a structured-field list: its bare value and its parameters. */
interface Member {
  readonly value: string;
  readonly params: ReadonlyMap<string, string>;
}

/**
 * A header's list members (`a;k=v, b;k=v`), read leniently: commas inside quotes are
 * kept, and a member without a value (`limit=100`) has its key as a parameter.
 */
function members(header: string): Member[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const [first = '', ...rest] = part.split(';').map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of first.includes('=') ? [first, ...rest] : rest) {
        const eq = p.indexOf('=');
        if (eq > 0)
          params.set(
            p.slice(0, eq).trim().toLowerCase(),
            p
              .slice(eq + 1)
              .trim()
              .replace(/^"|"$/g, ''),
          );
      }
      return { value: first.includes('=') ? '' : first.replace(/^"|"$/g, ''), params };
    });
}

/**
 * The strictest rate (requests a second) stated by a RateLimit-Policy: `q` (or, in
 * the older form, the member's value) requests per `w` seconds. Policies counted in
 * another unit than requests (`qu`) say nothing about our rate and are skipped.
 */
function statedRate(policy: string | undefined): number | undefined {
  if (policy === undefined) return undefined;
  let strictest: number | undefined;
  for (const member of members(policy)) {
    const unit = member.params.get('qu');
    if (unit !== undefined && unit !== 'requests') continue;
    const quota = nonNegative(member.params.get('q') ?? member.value);
    const window = nonNegative(member.params.get('w'));
    if (quota === undefined || window === undefined || !(window > 0)) continue;
    const rate = quota / window;
    if (strictest === undefined || rate < strictest) strictest = rate;
  }
  return strictest;
}

/** When a RateLimit (or older RateLimit-Remaining/-Reset) header says the quota is spent: ms until it resets. */
function spentQuotaWait(headers: HeaderMap, nowMs: number): number | undefined {
  const current = headers.ratelimit;
  if (current !== undefined) {
    const listed = members(current);
    // Structured form: a member per policy, with r (remaining) and t (reset); the draft's
    // dictionary form: `limit=100, remaining=0, reset=10`, one key a member.
    const dictionary = new Map(listed.filter((m) => m.value === '').flatMap((m) => [...m.params]));
    for (const params of [...listed.map((m) => m.params), dictionary]) {
      const remaining = nonNegative(params.get('r') ?? params.get('remaining'));
      const reset = nonNegative(params.get('t') ?? params.get('reset'));
      if (remaining === 0 && reset !== undefined) return waitOf(reset * 1000);
    }
  }
  const remaining = nonNegative(headers['ratelimit-remaining']);
  const reset = nonNegative(headers['ratelimit-reset']);
  if (remaining === 0 && reset !== undefined) return waitOf(reset * 1000);
  const xRemaining = nonNegative(headers['x-ratelimit-remaining']);
  const xReset = nonNegative(headers['x-ratelimit-reset']);
  if (xRemaining === 0) return resetMs(xReset, nowMs);
  return undefined;
}

const LIMIT_HEADERS = [
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
] as const;

/** What an answer's headers say about the site's rate limit, at wall-clock time `nowMs`. */
export function rateSignals(headers: HeaderMap, nowMs: number): RateSignals {
  const present = LIMIT_HEADERS.some((name) => headers[name] !== undefined);
  if (!present) return { present };
  const retryAfter = waitOf(parseRetryAfter(headers['retry-after'], nowMs));
  const waitMs = retryAfter ?? spentQuotaWait(headers, nowMs);
  const statedPerSecond = statedRate(headers['ratelimit-policy']);
  return {
    present,
    ...(waitMs !== undefined ? { waitMs } : {}),
    ...(statedPerSecond !== undefined ? { statedPerSecond } : {}),
  };
}

/**
 * Whether an answer of `status` with these signals tells of a rate limit: a 429 always,
 * a 503 only with a rate-limit header (without one it is an outage).
 */
export function isRateLimited(status: number, signals: RateSignals): boolean {
  return status === 429 || (status === 503 && signals.present);
}
