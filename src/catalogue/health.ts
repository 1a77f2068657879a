/**
 * Platform health as last measured by `userscout catalogue self-check`: which
 * platforms are broken (their known accounts no longer read right) and when
 * each was validated. The service leaves broken platforms out of searches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CatalogueError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

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
    return new PlatformHealth(readHealthFile(path));
  }
}

/** The health file as written, or undefined when there is none yet. */
export function readHealthFile(path: string): HealthFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as HealthFile;
    if (typeof file !== 'object' || file === null || typeof file.platforms !== 'object' || !file.platforms)
      throw new Error('no "platforms" object');
    return file;
  } catch (error) {
    throw new CatalogueError(`health file ${path} is unreadable: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Replaces the health file at once: a running service never reads half of it. */
export function writeHealthFile(path: string, file: HealthFile): void {
  writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
}
