/**
 * The store's role for sites' learned limits: what a site taught one egress identity of
 * its rate limit, kept until it expires and shared by every process on the store, so a
 * limit one worker learns paces the others (src/schedule/site-limit-book.ts reads it).
 * Kept in each backend's site-fact table (site-fact-table.ts) as SITE_LIMITS says;
 * test/site-limit-store.contract.ts holds the rules every backend keeps.
 */
import type { LearnedLimit, LearnedLimitEntry } from '../schedule/learned-limit.js';
import type { LearnedLimitShelf } from '../schedule/site-limit-book.js';
import type { SiteFactKind, SiteFactTable } from './site-fact-table.js';

export type { LearnedLimitEntry };

/** Learned limits per (origin, identity): `keep` replaces, `learned` lists those not expired. */
export interface SiteLimitStore extends LearnedLimitShelf {}

/** A stored limit read back, or undefined when its fields do not make one (a row from elsewhere). */
function learnedLimitOf(stored: Readonly<Record<string, unknown>>): LearnedLimit | undefined {
  const perSecond = Number(stored.perSecond);
  const at = Number(stored.at);
  const expiresAt = Number(stored.expiresAt);
  if (!(perSecond > 0) || !Number.isFinite(at) || !Number.isFinite(expiresAt)) return undefined;
  const quietUntil = stored.quietUntil == null ? undefined : Number(stored.quietUntil);
  return {
    perSecond,
    stated: stored.stated === true,
    at,
    expiresAt,
    ...(quietUntil !== undefined && Number.isFinite(quietUntil) ? { quietUntil } : {}),
  };
}

/** Table `site_limits` (PostgreSQL's in migrations/postgres) and hash `site-limits`. */
export const SITE_LIMITS: SiteFactKind<LearnedLimitEntry> = {
  table: 'site_limits',
  hash: 'site-limits',
  fields: {
    perSecond: { column: 'per_second', type: 'real' },
    stated: { column: 'stated', type: 'boolean' },
    at: { column: 'learned_at', type: 'integer' },
    // Nothing is sent before then: the site asked us to wait.
    quietUntil: { column: 'quiet_until', type: 'integer', optional: true },
  },
  encode: ({ limit }) => ({
    perSecond: limit.perSecond,
    stated: limit.stated,
    at: limit.at,
    expiresAt: limit.expiresAt,
    quietUntil: limit.quietUntil,
  }),
  decode: (origin, identity, stored) => {
    const limit = learnedLimitOf(stored);
    return limit && { origin, identity, limit };
  },
};

/** The site limit store over a backend's table of `SITE_LIMITS`. */
export function siteLimitStore(table: SiteFactTable<LearnedLimitEntry>): SiteLimitStore {
  return { learned: (now) => table.read(now), keep: (entry) => table.keep(entry) };
}
