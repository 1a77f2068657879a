/**
 * Where control records live (control.ts): the store in the service, shared by
 * every search, thread and worker (src/store/roles/coordination-store.ts extends this), or this
 * process's memory for a one-off command (`MemoryControlLedger`).
 */
import type { ControlRecord } from './control.js';

export interface ControlLedger {
  /** The latest control of a platform through one egress identity, or undefined when none was checked. */
  getControl(platformId: string, identity: string): Promise<ControlRecord | undefined>;
  /** Replaces the record of the same platform and identity. */
  putControl(record: ControlRecord): Promise<void>;
  /**
   * Takes the lease `name` for `ttlMs` from `now` (ms epoch): true when nobody
   * held it (or it expired), false when someone else holds it. Never released
   * early: a lease marks work done for its whole term (one control per window).
   */
  claimLease(name: string, ttlMs: number, now: number): Promise<boolean>;
}

/** Control records and leases of one process, for the command line (no store). */
export class MemoryControlLedger implements ControlLedger {
  readonly #records = new Map<string, ControlRecord>();
  readonly #leases = new Map<string, number>();

  async getControl(platformId: string, identity: string): Promise<ControlRecord | undefined> {
    return this.#records.get(`${platformId}\u0000${identity}`);
  }

  async putControl(record: ControlRecord): Promise<void> {
    this.#records.set(`${record.platformId}\u0000${record.identity}`, record);
  }

  async claimLease(name: string, ttlMs: number, now: number): Promise<boolean> {
    const until = this.#leases.get(name);
    if (until !== undefined && until > now) return false;
    this.#leases.set(name, now + ttlMs);
    return true;
  }
}
