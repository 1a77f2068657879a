/**
 * Why a polite client met a site's limit: whether the site had told that address its limit
 * before (else no client could have known it), and for each refusal after it had, what the site
 * saw just before it from the same address and how late the simulated web's own event loop ran when
 * it counted it. A request that opened its connection shows how long after the connection's
 * start it came ([+ms]). A site counts a request when its code sees it; a starved simulated web sees
 * requests late and together, which a real site's edge would have counted apart.
 */
import type { SiteRequest } from '../src/sim/site-limits.js';

/** A stall at least this long (ms) counts as the loop running late. */
const LATE_MS = 100;

/** The event loop's lateness over time, from a ticker: each tick's delay past its due time. */
export class LoopLag {
  readonly #at: number[] = [];
  readonly #lag: number[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(everyMs = 10) {
    let last = performance.now();
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#at.push(now);
      this.#lag.push(Math.max(0, now - last - everyMs));
      last = now;
    }, everyMs);
    this.#timer.unref();
  }

  /** The longest lateness a tick within `windowMs` after `at` showed: how late the loop ran then. */
  around(at: number, windowMs = 100): number {
    let lo = 0;
    let hi = this.#at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#at[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    let most = 0;
    for (let i = lo; i < this.#at.length && this.#at[i]! <= at + windowMs; i++)
      most = Math.max(most, this.#lag[i]!);
    return most;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

export interface LimitTrace {
  /** Requests the site refused. */
  readonly refused: number;
  /** Of them, how many went to a site that had told this address its limit before (a polite client could have known). */
  readonly refusedAfterTold: number;
  /** The sites that refused a request before they had told their limit, and how many. */
  readonly refusedUntold: Readonly<Record<string, number>>;
  /** Of the refused, how many the simulated web counted while its loop ran at least LATE_MS late. */
  readonly refusedLate: number;
  /** Of every request, the share counted while its loop ran late (the base rate to compare with). */
  readonly shareLate: number;
  readonly lateMs: number;
  /**
   * The first refusals after the site had told (at most `samples`): when, the paths of it and the
   * two before it from the address, ms from each of those to it, the loop's lateness, and how
   * many came from the address in the 3 s before.
   */
  readonly samples: readonly {
    /** Seconds since the first request the simulated web logged. */
    atS: number;
    targets: string[];
    arrivalGaps: number[];
    loopLateMs: number;
    inLast3s: number;
  }[];
}

export function traceLimits(log: readonly SiteRequest[], lag: LoopLag, samples = 20): LimitTrace {
  const before = new Map<string, SiteRequest[]>();
  // Arrival times of the last 3 s per site and address: a rate kept on average shows at most 3 s of it.
  const window = new Map<string, number[]>();
  const found: LimitTrace['samples'][number][] = [];
  let refused = 0;
  let refusedLate = 0;
  let refusedAfterTold = 0;
  const refusedUntold: Record<string, number> = {};
  let late = 0;
  for (const r of log) {
    const key = `${r.site} ${r.address}`;
    const prior = before.get(key) ?? [];
    const recent = (window.get(key) ?? []).filter((at) => at > r.at - 3000);
    window.set(key, [...recent, r.at]);
    const loopLateMs = Math.round(lag.around(r.at));
    if (loopLateMs >= LATE_MS) late++;
    if (r.limited) {
      refused++;
      if (r.toldBefore) refusedAfterTold++;
      else refusedUntold[r.site] = (refusedUntold[r.site] ?? 0) + 1;
      if (loopLateMs >= LATE_MS) refusedLate++;
      // The samples are of the refusals a client could have avoided: the site had told it.
      if (r.toldBefore && found.length < samples)
        found.push({
          atS: Math.round((r.at - (log[0]?.at ?? r.at)) / 100) / 10,
          targets: [...prior, r].map(
            (p) => `${p.target ?? p.site}${p.sentFrom < p.at ? `[+${Math.round(p.at - p.sentFrom)}]` : ''}`,
          ),
          arrivalGaps: prior.map((p) => Math.round(r.at - p.at)),
          loopLateMs,
          inLast3s: recent.length,
        });
    }
    prior.push(r);
    if (prior.length > 2) prior.shift();
    before.set(key, prior);
  }
  return {
    refused,
    refusedAfterTold,
    refusedUntold,
    refusedLate,
    shareLate: log.length ? late / log.length : 0,
    lateMs: LATE_MS,
    samples: found,
  };
}
