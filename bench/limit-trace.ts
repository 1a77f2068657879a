/**
 * Why a polite client met a site's limit: for each refused request, what the site saw just
 * before it from the same address, and whether the client's sending alone (each request at
 * the time its sending began) would have been refused. Read from the simulated web's log.
 */
import { refusedUnder, type SiteRequest } from '../src/sim/site-limits.js';

export interface LimitTrace {
  /** Requests the site refused. */
  readonly refused: number;
  /** Of them, how many a site counting the client's send times (not arrivals) would refuse too. */
  readonly refusedBySending: number;
  /** Per refused request: ms from each of the two before it (same site and address) to it, by arrival and by sending. */
  readonly samples: readonly {
    site: string;
    arrivalGaps: number[];
    sendingGaps: number[];
    delayMs: number;
  }[];
  /** The simulated web's event loop delay over the run (ms): its lag bunches arrivals it then counts. */
  readonly loopDelayMs?: { readonly p99: number; readonly max: number };
}

export function traceLimits(log: readonly SiteRequest[], perSecond: number, samples = 20): LimitTrace {
  const bySending = [...log].sort((a, b) => a.sentFrom - b.sentFrom).map((r) => ({ ...r, at: r.sentFrom }));
  let refusedBySending = 0;
  for (const n of refusedUnder(bySending, perSecond, perSecond).values()) refusedBySending += n;
  const before = new Map<string, SiteRequest[]>();
  const found: LimitTrace['samples'][number][] = [];
  let refused = 0;
  for (const r of log) {
    const key = `${r.site} ${r.address}`;
    const prior = before.get(key) ?? [];
    if (r.limited) {
      refused++;
      if (found.length < samples) {
        const last = prior.slice(-2);
        found.push({
          site: r.site,
          arrivalGaps: last.map((p) => Math.round(r.at - p.at)),
          sendingGaps: last.map((p) => Math.round(r.sentFrom - p.sentFrom)),
          delayMs: Math.round(r.at - r.sentFrom),
        });
      }
    }
    prior.push(r);
    if (prior.length > 2) prior.shift();
    before.set(key, prior);
  }
  return { refused, refusedBySending, samples: found };
}
