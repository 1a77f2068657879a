/**
 * The store's table of site facts: values kept per (origin, egress identity) until they
 * expire, shared by every process on the store (learned site limits, remembered
 * transports). Each backend keeps the keying, expiry, replacement and sweeping once
 * (sqlite-site-facts.ts, postgres-site-facts.ts, redis-site-facts.ts); a kind of fact
 * only says, with a SiteFactKind, where it is kept and how its fields are stored.
 */
import type { SiteFact } from '../schedule/site-facts.js';

/** One kind's facts on one backend: `keep` replaces the (origin, identity)'s, `read` lists those not expired. */
export interface SiteFactTable<E extends SiteFact> {
  /** Every fact not expired at `now` (wall-clock ms); expired ones are deleted as they are met. */
  read(now: number): Promise<readonly E[]>;
  /** Keeps `entry`, replacing its (origin, identity)'s, until its expiry. */
  keep(entry: E): Promise<void>;
}

/**
 * How a field is stored. SQLite declares its column so (`boolean` as 0 or 1); PostgreSQL's
 * tables come from migrations/postgres; Redis keeps fields as JSON.
 */
export type FactFieldType = 'text' | 'integer' | 'real' | 'boolean';

export interface FactField {
  /** Its column in the SQL backends (SQLite and PostgreSQL name them alike). */
  readonly column: string;
  readonly type: FactFieldType;
  /** May be absent (SQL null, missing from Redis's JSON). @default false */
  readonly optional?: boolean;
}

/** A fact's stored value besides its origin and identity: its fields, and when it expires (wall-clock ms). */
export interface StoredFact {
  readonly expiresAt: number;
  readonly [field: string]: string | number | boolean | undefined;
}

/** Where a kind of fact is kept and how it is written and read back. */
export interface SiteFactKind<E extends SiteFact> {
  /** The SQL backends' table. */
  readonly table: string;
  /** The Redis hash, after the store's prefix. */
  readonly hash: string;
  /** The fields `encode` gives besides `expiresAt`, which every table keeps (column `expires_at`). */
  readonly fields: Readonly<Record<string, FactField>>;
  encode(entry: E): StoredFact;
  /**
   * The fact of stored fields, or undefined when they do not make one (a row from elsewhere).
   * Fields come back as stored, except that PostgreSQL gives its bigints as strings.
   */
  decode(origin: string, identity: string, stored: Readonly<Record<string, unknown>>): E | undefined;
}

/** The column every table keeps a fact's expiry in (field `expiresAt`). */
export const EXPIRES_AT_COLUMN = 'expires_at';
