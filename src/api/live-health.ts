/**
 * Platform health while the service runs: the health file read at start
 * (`userscout catalogue self-check`), overlaid by the verdicts the scheduled
 * self-check keeps in the store, whichever is newer per platform. Read again
 * every `refreshMs`, so a platform found broken leaves default searches, and
 * one found healthy again comes back, without a restart.
 */
import type { PlatformHealth, PlatformHealthEntry } from '../catalogue/health.js';
import { HEALTH_REFRESH_MS } from '../tuning.js';

/** What the routes read of platform health. */
export interface HealthSource {
  get(platformId: string): PlatformHealthEntry | undefined;
  /** Platforms to leave out of default searches (broken). */
  unhealthyIds(): ReadonlySet<string>;
}

export class LiveHealth implements HealthSource {
  readonly #file: PlatformHealth;
  readonly #read: () => Promise<Record<string, PlatformHealthEntry>>;
  #stored: Record<string, PlatformHealthEntry> = {};
  #unhealthy: ReadonlySet<string>;
  #timer: NodeJS.Timeout | undefined;

  constructor(file: PlatformHealth, read: () => Promise<Record<string, PlatformHealthEntry>>) {
    this.#file = file;
    this.#read = read;
    this.#unhealthy = file.unhealthyIds();
  }

  get(platformId: string): PlatformHealthEntry | undefined {
    const fromFile = this.#file.get(platformId);
    const stored = this.#stored[platformId];
    if (!stored) return fromFile;
    return fromFile && fromFile.validatedAt > stored.validatedAt ? fromFile : stored;
  }

  unhealthyIds(): ReadonlySet<string> {
    return this.#unhealthy;
  }

  /** Reads the store's verdicts now; a store that cannot answer leaves the last ones. */
  async refresh(): Promise<void> {
    try {
      this.#stored = await this.#read();
    } catch {
      return;
    }
    const ids = new Set([...this.#file.unhealthyIds(), ...Object.keys(this.#stored)]);
    this.#unhealthy = new Set([...ids].filter((id) => this.get(id)?.verdict === 'broken'));
  }

  start(refreshMs = HEALTH_REFRESH_MS): void {
    this.#timer = setInterval(() => void this.refresh(), refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
