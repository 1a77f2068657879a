/**
 * The store's role for sites' learned limits: what a site taught one egress identity of
 * its rate limit, kept until it expires and shared by every process on the store, so a
 * limit one worker learns paces the others (src/schedule/site-limit-book.ts reads it).
 * Implemented on SQLite, PostgreSQL and Redis; test/site-limit-store.contract.ts holds
 * the rules every backend keeps.
 */
import type { LearnedLimit, LearnedLimitEntry } from '../schedule/learned-limit.js';
import type { LearnedLimitShelf } from '../schedule/site-limit-book.js';

export type { LearnedLimitEntry };

/** Learned limits per (origin, identity): `keep` replaces, `learned` lists those not expired. */
export interface SiteLimitStore extends LearnedLimitShelf {}

/** A stored limit read back, or undefined when its fields do not make one (a row from elsewhere). */
export function learnedLimitOf(value: {
  readonly perSecond: unknown;
  readonly stated: unknown;
  readonly at: unknown;
  readonly expiresAt: unknown;
  readonly quietUntil?: unknown;
}): LearnedLimit | undefined {
  const perSecond = Number(value.perSecond);
  const at = Number(value.at);
  const expiresAt = Number(value.expiresAt);
  if (!(perSecond > 0) || !Number.isFinite(at) || !Number.isFinite(expiresAt)) return undefined;
  const quietUntil = value.quietUntil == null ? undefined : Number(value.quietUntil);
  return {
    perSecond,
    stated: value.stated === true || value.stated === 1,
    at,
    expiresAt,
    ...(quietUntil !== undefined && Number.isFinite(quietUntil) ? { quietUntil } : {}),
  };
}

/** A row of the SQL backends' `site_limits` table (SQLite and PostgreSQL name its columns alike). */
export interface SiteLimitRow {
  readonly origin: string;
  readonly identity: string;
  readonly per_second: unknown;
  readonly stated: unknown;
  readonly learned_at: unknown;
  readonly expires_at: unknown;
  readonly quiet_until: unknown;
}

/** The entries of the rows that make a limit: one reading for both SQL backends. */
export function entriesOfRows(rows: readonly SiteLimitRow[]): LearnedLimitEntry[] {
  const entries: LearnedLimitEntry[] = [];
  for (const row of rows) {
    const limit = learnedLimitOf({
      perSecond: row.per_second,
      stated: row.stated,
      at: row.learned_at,
      expiresAt: row.expires_at,
      quietUntil: row.quiet_until,
    });
    if (limit) entries.push({ origin: row.origin, identity: row.identity, limit });
  }
  return entries;
}
