/**
 * The store's role for the transports sites needed: per (origin, egress identity), the
 * costlier transport an escalation got past the site's defence through, kept until it
 * expires and shared by every process on the store, so later checks start there
 * (src/engine/transport-book.ts reads it). Kept in each backend's site-fact table
 * (site-fact-table.ts) as TRANSPORT_MEMORY says;
 * test/transport-memory-store.contract.ts holds the rules every backend keeps.
 */
import { TRANSPORTS, type Transport } from '../catalogue/platform.js';
import type { RememberedTransport, TransportShelf } from '../engine/transport-book.js';
import type { SiteFactKind, SiteFactTable } from './site-fact-table.js';

export type { RememberedTransport };

/** Remembered transports per (origin, identity): `keep` replaces, `remembered` lists those not expired. */
export interface TransportMemoryStore extends TransportShelf {}

/** Table `transport_memory` (PostgreSQL's in migrations/postgres) and hash `transport-memory`. */
export const TRANSPORT_MEMORY: SiteFactKind<RememberedTransport> = {
  table: 'transport_memory',
  hash: 'transport-memory',
  fields: {
    transport: { column: 'transport', type: 'text' },
    at: { column: 'learned_at', type: 'integer' },
  },
  encode: ({ transport, at, expiresAt }) => ({ transport, at, expiresAt }),
  decode: (origin, identity, stored) => {
    const { transport } = stored;
    const at = Number(stored.at);
    const expiresAt = Number(stored.expiresAt);
    if (!TRANSPORTS.includes(transport as Transport)) return undefined;
    if (!Number.isFinite(at) || !Number.isFinite(expiresAt)) return undefined;
    return { origin, identity, transport: transport as Transport, at, expiresAt };
  },
};

/** The transport memory store over a backend's table of `TRANSPORT_MEMORY`. */
export function transportMemoryStore(table: SiteFactTable<RememberedTransport>): TransportMemoryStore {
  return { remembered: (now) => table.read(now), keep: (entry) => table.keep(entry) };
}
