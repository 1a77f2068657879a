/**
 * Rate limits of the simulated sites, as real sites apply them: a token bucket
 * of N requests a second (and a burst of N) per (site, client address), answered
 * with 429 beyond it (with Retry-After, or the header form a test or the benchmark
 * picks), and counted. Also how N is seeded per
 * platform, and the request log that tests and the benchmark read the
 * simulated web's view of politeness from.
 */
import type { Platform } from '../catalogue/platform.js';
import { hashSeed, seededRandom } from './random.js';

/**
 * Range of the seeded limits (requests a second per client address). Its lowest
 * value is above the default request budget (USERSCOUT_BUDGET_PER_SECOND 4,
 * USERSCOUT_BUDGET_BURST 2), so network jitter never pushes a polite client over.
 */
export const SITE_LIMIT_RANGE = { min: 5, max: 10 } as const;

/**
 * A platform's seeded limit: in SITE_LIMIT_RANGE, or, for a platform whose
 * catalogue entry sets its own budget, that budget plus one token: strict, yet
 * never below what the entry promises it allows.
 */
export function siteLimit(
  platform: Platform,
  seed: number,
  range: { readonly min: number; readonly max: number } = SITE_LIMIT_RANGE,
): number {
  if (platform.budget) return Math.ceil(Math.max(platform.budget.perSecond, platform.budget.burst)) + 1;
  const r = seededRandom(hashSeed(`${seed}:limit:${platform.id}`))();
  return range.min + Math.floor(r * (range.max - range.min + 1));
}

/**
 * How a site's 429 tells of its limit, as real sites do: `Retry-After` alone; the IETF
 * draft's structured `RateLimit` and `RateLimit-Policy`; its older `RateLimit-Limit`,
 * `-Remaining`, `-Reset` with `RateLimit-Policy: N;w=1`; or `X-RateLimit-*`.
 */
export type LimitAnswer = 'retry-after' | 'ratelimit' | 'ratelimit-fields' | 'x-ratelimit';

export const LIMIT_ANSWERS: readonly LimitAnswer[] = [
  'retry-after',
  'ratelimit',
  'ratelimit-fields',
  'x-ratelimit',
];

/** The headers of a 429 from a site limited to `perSecond` a second, whose next token comes in `retryAfter` s. */
export function limitHeaders(
  answer: LimitAnswer,
  perSecond: number,
  retryAfter: number,
): Record<string, string> {
  switch (answer) {
    case 'retry-after':
      return { 'retry-after': String(retryAfter) };
    case 'ratelimit':
      return {
        ratelimit: `"default";r=0;t=${retryAfter}`,
        'ratelimit-policy': `"default";q=${perSecond};w=1`,
      };
    case 'ratelimit-fields':
      return {
        'ratelimit-limit': String(perSecond),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(retryAfter),
        'ratelimit-policy': `${perSecond};w=1`,
      };
    case 'x-ratelimit':
      return {
        'x-ratelimit-limit': String(perSecond),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(retryAfter),
      };
  }
}

/**
 * The headers every answer of such a site carries, 429 or not: its policy, for the forms
 * that state one (a client following the IETF draft keeps within it before any 429).
 */
export function policyHeaders(answer: LimitAnswer, perSecond: number): Record<string, string> | undefined {
  switch (answer) {
    case 'ratelimit':
      return { 'ratelimit-policy': `"default";q=${perSecond};w=1` };
    case 'ratelimit-fields':
      return { 'ratelimit-policy': `${perSecond};w=1` };
    default:
      return undefined;
  }
}

/** One request as a site saw it. */
export interface SiteRequest {
  /** performance.now() of the simulated web's process (ms). */
  readonly at: number;
  /**
   * When the client began sending it (same clock): its connection's start for the first request
   * on a connection, whose handshake delays its arrival and not the one after it; else `at`.
   */
  readonly sentFrom: number;
  /** The site (limit key, or the host when the site has no limit). */
  readonly site: string;
  /** The client's address (the socket's remote address). */
  readonly address: string;
  /** Answered 429 by the site's limit. */
  readonly limited: boolean;
  /** What was asked for (host and path), when the caller said. */
  readonly target?: string;
  /** Whether the site had told this address its limit before (a 429, or a policy on an answer). */
  readonly toldBefore?: boolean;
}

export interface SiteStats {
  /** Requests, by site then client address. */
  readonly requests: Record<string, Record<string, number>>;
  /** 429 answers of the sites' limits: in all, by site, by client address. */
  readonly limited: {
    readonly total: number;
    readonly bySite: Record<string, number>;
    readonly byAddress: Record<string, number>;
  };
}

/** A token bucket: `tokens` left at time `at` (ms). */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Takes a token at `at` from a bucket of `burst` tokens refilled at `perSecond`:
 * undefined when there was one, else the whole seconds until there is (Retry-After).
 */
function takeToken(bucket: Bucket, at: number, perSecond: number, burst: number): number | undefined {
  bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * perSecond);
  bucket.at = at;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return undefined;
  }
  return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
}

/**
 * Replays a request log through a site limit of `perSecond` after a burst of
 * `burst`, per (site, address): how many requests such a site would have refused,
 * by "site address". Zero everywhere means the log kept within that limit.
 */
export function refusedUnder(
  log: readonly SiteRequest[],
  perSecond: number,
  burst: number,
): Map<string, number> {
  const buckets = new Map<string, Bucket>();
  const refused = new Map<string, number>();
  for (const r of log) {
    const key = `${r.site} ${r.address}`;
    const bucket = buckets.get(key) ?? { tokens: burst, at: r.at };
    buckets.set(key, bucket);
    const over = takeToken(bucket, r.at, perSecond, burst) !== undefined;
    refused.set(key, (refused.get(key) ?? 0) + (over ? 1 : 0));
  }
  return refused;
}

/** The token buckets of every (site, address), the 429s counted, and optionally each request. */
export class SiteLimits {
  readonly #buckets = new Map<string, Bucket>();
  readonly #requests = new Map<string, Map<string, number>>();
  readonly #bySite = new Map<string, number>();
  readonly #byAddress = new Map<string, number>();
  /** The (site, address) pairs the site has told its limit (`site|address`). */
  readonly #told = new Set<string>();
  readonly #log: SiteRequest[] | undefined;
  readonly #now: () => number;
  #limited = 0;

  constructor(options: { readonly log?: boolean; readonly now?: () => number } = {}) {
    this.#log = options.log ? [] : undefined;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Counts one request to `site` from `address`. With a limit of `perSecond`, takes
   * a token: undefined when there is one, else the seconds until there is (Retry-After).
   */
  admit(
    site: string,
    address: string,
    perSecond: number | undefined,
    sentFrom?: number,
    target?: string,
  ): number | undefined {
    const at = this.#now();
    const perAddress = this.#requests.get(site) ?? new Map<string, number>();
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    this.#requests.set(site, perAddress);
    let retryAfter: number | undefined;
    const key = `${site}|${address}`;
    const toldBefore = this.#told.has(key);
    if (perSecond !== undefined) {
      const bucket = this.#buckets.get(key) ?? { tokens: perSecond, at };
      this.#buckets.set(key, bucket);
      retryAfter = takeToken(bucket, at, perSecond, perSecond);
    }
    if (retryAfter !== undefined) {
      this.#told.add(key);
      this.#limited++;
      this.#bySite.set(site, (this.#bySite.get(site) ?? 0) + 1);
      this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + 1);
    }
    this.#log?.push({
      at,
      sentFrom: sentFrom ?? at,
      site,
      address,
      limited: retryAfter !== undefined,
      toldBefore,
      ...(target === undefined ? {} : { target }),
    });
    return retryAfter;
  }

  /** The site's answer to `address` stated its limit (a policy header). */
  told(site: string, address: string): void {
    this.#told.add(`${site}|${address}`);
  }

  stats(): SiteStats {
    return {
      requests: Object.fromEntries([...this.#requests].map(([site, m]) => [site, Object.fromEntries(m)])),
      limited: {
        total: this.#limited,
        bySite: Object.fromEntries(this.#bySite),
        byAddress: Object.fromEntries(this.#byAddress),
      },
    };
  }

  /** Every request seen, when logging is on (else empty). */
  get log(): readonly SiteRequest[] {
    return this.#log ?? [];
  }
}

/**
 * The most requests from one address to one site within any `windowMs` (half
 * open), by site then address, by when the client began sending each: how fast
 * the client sent, which a connection's handshake does not compress.
 */
export function busiestWindow(log: readonly SiteRequest[], windowMs = 1000): Map<string, number> {
  const times = new Map<string, number[]>();
  for (const r of log) {
    const key = `${r.site} ${r.address}`;
    const list = times.get(key) ?? [];
    list.push(r.sentFrom);
    times.set(key, list);
  }
  const most = new Map<string, number>();
  for (const [key, list] of times) {
    list.sort((a, b) => a - b);
    let best = 0;
    let from = 0;
    for (let to = 0; to < list.length; to++) {
      while (list[to]! - list[from]! >= windowMs) from++;
      best = Math.max(best, to - from + 1);
    }
    most.set(key, best);
  }
  return most;
}
