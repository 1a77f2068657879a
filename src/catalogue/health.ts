/**
 * Platform health as last measured by `userscout catalogue self-check`: which
 * platforms are broken (their known accounts no longer read right) and when
 * each was validated. The service leaves broken platforms out of searches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CatalogueError } from '../errors.js';

export type HealthVerdict = 'healthy' | 'broken' | 'blocked';

export interface PlatformHealthEntry {
  readonly verdict: HealthVerdict;
  /** Why it is broken or blocked, with the evidence. */
  readonly reason?: string;
  /** ms epoch */
  readonly validatedAt: number;
}

export interface HealthFile {
  readonly generatedAt: number;
  readonly platforms: Readonly<Record<string, PlatformHealthEntry>>;
}

export class PlatformHealth {
  readonly #entries: ReadonlyMap<string, PlatformHealthEntry>;
  readonly #unhealthy: ReadonlySet<string>;

  constructor(file?: HealthFile) {
    this.#entries = new Map(Object.entries(file?.platforms ?? {}));
    this.#unhealthy = new Set([...this.#entries].filter(([, e]) => e.verdict === 'broken').map(([id]) => id));
  }

  /** Platforms to leave out of searches. */
  unhealthyIds(): ReadonlySet<string> {
    return this.#unhealthy;
  }

  get(platformId: string): PlatformHealthEntry | undefined {
    return this.#entries.get(platformId);
  }

  /** Reads a health file; none yet means no platform is known to be broken. */
  static read(path: string): PlatformHealth {
    if (!existsSync(path)) return new PlatformHealth();
    try {
      return new PlatformHealth(JSON.parse(readFileSync(path, 'utf8')) as HealthFile);
    } catch (error) {
      throw new CatalogueError(`health file ${path} is unreadable: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
