/**
 * The scheduled self-check, inside the running service: every platform's known
 * accounts (its first claimed and first unclaimed name) are checked again once
 * per interval, one platform at a time, spread evenly over the interval, through
 * the engine (so within its request budgets). Each platform's verdict goes to the
 * store, where the API reads it: a platform found broken leaves default searches
 * while the service runs. In a cluster every process ticks through the same
 * platforms at the same moments, and a lease per platform and interval lets one
 * of them check it. Judging is the CLI self-check's (catalogue/self-check.ts).
 */
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { Platform } from '../catalogue/platform.js';
import { healthEntryOf, judgePlatform, type SelfCheckProbe, selfCheckPlan } from '../catalogue/self-check.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import type { CoordinationStore } from '../store/roles/coordination-store.js';
import type { StatsStore } from '../store/roles/stats-store.js';

export interface SelfCheckScheduleOptions {
  /** The platforms checked (enabled ones with known names), in a fixed order shared by the cluster. */
  readonly platforms: readonly Platform[];
  /** Every platform is checked once per interval (ms). */
  readonly intervalMs: number;
  /** Checks one name on one platform, through the engine. */
  readonly check: (platform: Platform, username: string) => Promise<Outcome>;
  readonly store: CoordinationStore & StatsStore;
  /** Wall clock (ms epoch), the same in every process of the cluster. */
  readonly clock: () => number;
  /** A check or the store failing (never stops the schedule). */
  readonly onError?: (error: unknown, platform: Platform) => void;
  readonly onVerdict?: (platformId: string, entry: PlatformHealthEntry) => void;
}

/** The platforms a scheduled self-check covers: enabled, with a claimed and an unclaimed name, by id. */
export function selfCheckPlatforms(platforms: readonly Platform[]): Platform[] {
  return platforms
    .filter((p) => p.enabled && p.known.claimed.length > 0 && p.known.unclaimed.length > 0)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Which platform is due at `now`, and the interval it is due in: slot `i` of each interval is platform `i`. */
export function dueAt(now: number, intervalMs: number, count: number): { index: number; round: number } {
  const tickMs = intervalMs / count;
  return { index: Math.floor((now % intervalMs) / tickMs), round: Math.floor(now / intervalMs) };
}

export class SelfCheckSchedule {
  readonly #options: SelfCheckScheduleOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: SelfCheckScheduleOptions) {
    this.#options = options;
  }

  start(): void {
    const { platforms, intervalMs } = this.#options;
    if (platforms.length === 0 || intervalMs <= 0) return;
    this.#schedule();
  }

  /** Stops ticking and waits for a check under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    const { platforms, intervalMs, clock } = this.#options;
    const tickMs = intervalMs / platforms.length;
    const now = clock();
    // To the start of the next slot, so every process of a cluster ticks together.
    const wait = Math.max(1, Math.ceil(tickMs - (now % tickMs)));
    this.#timer = setTimeout(() => {
      this.#running = this.runDue().finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, wait);
    this.#timer.unref();
  }

  /** Checks the platform due now, if no other process has this interval's lease on it. */
  async runDue(): Promise<void> {
    const { platforms, intervalMs, clock, store } = this.#options;
    const { index, round } = dueAt(clock(), intervalMs, platforms.length);
    const platform = platforms[index];
    if (!platform) return;
    try {
      if (!(await store.claimLease(`self-check:${platform.id}:${round}`, intervalMs, clock()))) return;
      await this.checkPlatform(platform);
    } catch (error) {
      this.#options.onError?.(error, platform);
    }
  }

  /** Checks one platform's known names now and stores its verdict. */
  async checkPlatform(platform: Platform): Promise<PlatformHealthEntry> {
    const { check, clock, store } = this.#options;
    const probes: SelfCheckProbe[] = await Promise.all(
      selfCheckPlan(platform).map(async (probe) => ({
        ...probe,
        outcome: await check(platform, probe.username),
      })),
    );
    const verdict = judgePlatform(platform, probes, clock());
    const entry = healthEntryOf(verdict);
    await store.putPlatformHealth(platform.id, entry);
    this.#options.onVerdict?.(platform.id, entry);
    return entry;
  }
}

/** The schedule of a process that runs checks (the search thread, a cluster worker), from the configuration. */
export function scheduleSelfCheck(
  config: { readonly selfCheckIntervalMs: number },
  parts: {
    readonly platforms: readonly Platform[];
    readonly engine: { check(platform: Platform, username: string): Promise<Outcome> };
    readonly store: CoordinationStore & StatsStore;
    readonly onError?: (error: unknown, platform: Platform) => void;
  },
): SelfCheckSchedule {
  const schedule = new SelfCheckSchedule({
    platforms: selfCheckPlatforms(parts.platforms),
    intervalMs: config.selfCheckIntervalMs,
    check: (platform, username) => parts.engine.check(platform, username),
    store: parts.store,
    clock: Date.now,
    ...(parts.onError ? { onError: parts.onError } : {}),
  });
  schedule.start();
  return schedule;
}
