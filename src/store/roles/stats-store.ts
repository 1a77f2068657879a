/**
 * What is known of each platform: its checks' statistics (counts by status, response times:
 * what estimates and the order of checks read, src/store/recent-latencies.ts) and the
 * scheduled self-check's latest verdict (runner/self-check-schedule.ts).
 */
import type { PlatformHealthEntry } from '../../catalogue/health.js';
import type { OutcomeStatus } from '../../engine/verdict/outcome.js';
import type { RoleMethods } from './role.js';

export interface PlatformStats {
  readonly platformId: string;
  readonly checks: number;
  /** Mean response time of checks that got an answer, ms. */
  readonly meanMs: number;
  /** Exponentially weighted recent response time (tuning.ts RECENT_MS_ALPHA), ms: what estimates use. */
  readonly recentMs: number;
  readonly byStatus: Readonly<Record<OutcomeStatus, number>>;
  readonly lastCheckedAt: number;
}

/** A check to add to its platform's statistics: `recordCheck`'s arguments. */
export interface CheckStat {
  readonly platformId: string;
  readonly status: OutcomeStatus;
  readonly responseTimeMs: number;
  readonly at: number;
}

export interface StatsStore {
  /** Adds one check to the platform's statistics. */
  recordCheck(platformId: string, status: OutcomeStatus, responseTimeMs: number, at: number): Promise<void>;
  /**
   * `recordCheck` for each check, every one tried (`recentMs` weighs them in the order they
   * land, which is the order given where the backend writes them at once). Rejects with the
   * first failure.
   */
  recordChecks(checks: readonly CheckStat[]): Promise<void>;
  platformStats(): Promise<PlatformStats[]>;
  /** Stores a platform's verdict from the scheduled self-check, replacing its last one. */
  putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void>;
  /** The scheduled self-check's latest verdict of each platform checked, by platform id. */
  listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>>;
}

export const STATS_STORE_METHODS: RoleMethods<StatsStore> = {
  recordCheck: true,
  recordChecks: true,
  platformStats: true,
  putPlatformHealth: true,
  listPlatformHealth: true,
};

/** Statuses that mean the platform answered, so their response time says how fast it is. */
export const ANSWERED_STATUSES: ReadonlySet<OutcomeStatus> = new Set(['hit', 'miss', 'unknown']);
