/**
 * One platform's health as the platform list and the report show it: what the
 * last self-check found (health.json, or the scheduled self-check) and what its
 * control checks found (rule drift), merged (`platformHealthView`, pure).
 * `readPlatformHealth` reads both for every platform: the one source of
 * GET /api/platforms and of the report's platform health.
 */
import type { PlatformHealthEntry } from '../catalogue/health.js';
import { type ControlRecord, describeControl, toldNotAHit } from '../engine/controls/control.js';
import type { CoordinationStore } from '../store/roles/coordination-store.js';
import type { HealthState } from './health-states.js';
import type { HealthSource } from './live-health.js';

export interface PlatformHealthView {
  /** `rule_drift` (a control read hit: hits are unknown), then `broken`, `blocked`, `healthy`; `unchecked` when nothing was measured. */
  readonly state: HealthState;
  /** When it was last checked, by a self-check or a control (ISO 8601). */
  readonly lastCheckedAt?: string;
  /** Why it is not healthy: the control or the self-check probes, with their evidence. */
  readonly reason?: string;
}

function platformHealthView(
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
  // A control the rule told apart (a miss, or a hit-only platform's no_miss_rule) shows it telling.
  if (selfCheck || controls.some(toldNotAHit)) return { state: 'healthy', ...lastCheckedAt };
  return { state: 'unchecked', ...lastCheckedAt };
}

/** Control records by platform id. */
function controlsByPlatform(records: readonly ControlRecord[]): Map<string, ControlRecord[]> {
  const out = new Map<string, ControlRecord[]>();
  for (const r of records) {
    const list = out.get(r.platformId);
    if (list) list.push(r);
    else out.set(r.platformId, [r]);
  }
  return out;
}

/** The health of each platform now, by id: the self-check's verdicts and the store's control records. */
export async function readPlatformHealth(
  deps: { readonly health: HealthSource; readonly store: CoordinationStore },
  platformIds: readonly string[],
): Promise<Map<string, PlatformHealthView>> {
  const controls = controlsByPlatform(await deps.store.listControls());
  return new Map(
    platformIds.map((id) => [id, platformHealthView(deps.health.get(id), controls.get(id) ?? [])]),
  );
}
