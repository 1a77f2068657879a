/**
 * The store's role for the transports sites needed: per (origin, egress identity), the
 * costlier transport an escalation got past the site's defence through, kept until it
 * expires and shared by every process on the store, so later checks start there
 * (src/engine/transport-book.ts reads it). Implemented on SQLite, PostgreSQL and Redis;
 * test/transport-memory-store.contract.ts holds the rules every backend keeps.
 */
import { TRANSPORTS, type Transport } from '../catalogue/platform.js';
import type { RememberedTransport, TransportShelf } from '../engine/transport-book.js';

export type { RememberedTransport };

/** Remembered transports per (origin, identity): `keep` replaces, `remembered` lists those not expired. */
export interface TransportMemoryStore extends TransportShelf {}

/** A stored entry read back, or undefined when its fields do not make one (a row from elsewhere). */
export function rememberedTransportOf(value: {
  readonly origin: unknown;
  readonly identity: unknown;
  readonly transport: unknown;
  readonly at: unknown;
  readonly expiresAt: unknown;
}): RememberedTransport | undefined {
  const { origin, identity, transport } = value;
  const at = Number(value.at);
  const expiresAt = Number(value.expiresAt);
  if (typeof origin !== 'string' || typeof identity !== 'string') return undefined;
  if (!TRANSPORTS.includes(transport as Transport)) return undefined;
  if (!Number.isFinite(at) || !Number.isFinite(expiresAt)) return undefined;
  return { origin, identity, transport: transport as Transport, at, expiresAt };
}

/** A row of the SQL backends' `transport_memory` table (SQLite and PostgreSQL name its columns alike). */
export interface TransportMemoryRow {
  readonly origin: string;
  readonly identity: string;
  readonly transport: unknown;
  readonly learned_at: unknown;
  readonly expires_at: unknown;
}

/** The entries of the rows that make one: one reading for both SQL backends. */
export function entriesOfTransportRows(rows: readonly TransportMemoryRow[]): RememberedTransport[] {
  const entries: RememberedTransport[] = [];
  for (const row of rows) {
    const entry = rememberedTransportOf({
      origin: row.origin,
      identity: row.identity,
      transport: row.transport,
      at: row.learned_at,
      expiresAt: row.expires_at,
    });
    if (entry) entries.push(entry);
  }
  return entries;
}
