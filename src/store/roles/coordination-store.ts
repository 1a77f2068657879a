/**
 * What processes share to coordinate checks: the control checks' records per platform and
 * egress identity (engine/controls/control.ts) and leases on work to be done once (a control per
 * window, a self-check round). A lease is taken only when free or expired, and is never
 * released early.
 */
import type { ControlRecord } from '../../engine/controls/control.js';
import type { ControlLedger } from '../../engine/controls/control-ledger.js';
import type { RoleMethods } from './role.js';

export interface CoordinationStore extends ControlLedger {
  /** Every platform's latest control record per egress identity, by platform id then identity. */
  listControls(): Promise<ControlRecord[]>;
}

export const COORDINATION_STORE_METHODS: RoleMethods<CoordinationStore> = {
  getControl: true,
  putControl: true,
  claimLease: true,
  listControls: true,
};
