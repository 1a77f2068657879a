/**
 * One platform's health as the platform list shows it: what the last
 * self-check found (health.json, or the scheduled self-check) and what its
 * control checks found (rule drift), merged. Pure.
 */
import type { PlatformHealthEntry } from '../catalogue/health.js';
import { type ControlRecord, describeControl } from '../engine/control.js';
import type { HealthState } from './health-states.js';

export interface PlatformHealthView {
  /** `rule_drift` (a control read hit: hits are unknown), then `broken`, `blocked`, `healthy`; `unchecked` when nothing was measured. */
  readonly state: HealthState;
  /** When it was last checked, by a self-check or a control (ISO 8601). */
  readonly lastCheckedAt?: string;
  /** Why it is not healthy: the control or the self-check probes, with their evidence. */
  readonly reason?: string;
}

export function platformHealthView(
  selfCheck: PlatformHealthEntry | undefined,
  controls: readonly ControlRecord[],
): PlatformHealthView {
  const times = [...controls.map((c) => c.checkedAt), ...(selfCheck ? [selfCheck.validatedAt] : [])];
  const lastCheckedAt = times.length ? { lastCheckedAt: new Date(Math.max(...times)).toISOString() } : {};
  const drifted = controls.filter((c) => c.drift);
  if (drifted.length > 0) {
    const reason = drifted.map((c) => `${describeControl(c)} through ${c.identity}`).join('; ');
    return { state: 'rule_drift', ...lastCheckedAt, reason };
  }
  if (selfCheck && selfCheck.verdict !== 'healthy')
    return {
      state: selfCheck.verdict,
      ...lastCheckedAt,
      ...(selfCheck.reason ? { reason: selfCheck.reason } : {}),
    };
  if (selfCheck || controls.some((c) => c.status === 'miss')) return { state: 'healthy', ...lastCheckedAt };
  return { state: 'unchecked', ...lastCheckedAt };
}

/** Control records by platform id. */
export function controlsByPlatform(records: readonly ControlRecord[]): Map<string, ControlRecord[]> {
  const out = new Map<string, ControlRecord[]>();
  for (const r of records) {
    const list = out.get(r.platformId);
    if (list) list.push(r);
    else out.set(r.platformId, [r]);
  }
  return out;
}
