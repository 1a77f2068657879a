/**
 * The command line's memory of how long each platform took to answer, kept
 * between runs in a small JSON file, so a search can start the slowest checks
 * first from its first millisecond, as the service does from its store. A
 * missing or damaged file is an empty memory: it only orders checks, so losing
 * it costs time, never an answer.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../catalogue/atomic-write.js';
import type { Outcome } from '../engine/verdict/outcome.js';

const VERSION = 1;

/** Where the memory lives: the setting's path, or the user's cache folder when it is empty; undefined when turned off. */
export function latencyMemoryPath(setting: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (setting === 'off') return undefined;
  if (setting !== '') return setting;
  const cacheHome = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(cacheHome, 'userscout', 'latencies.json');
}

/** Platform id → milliseconds, as last remembered. */
export function readLatencyMemory(path: string | undefined): Map<string, number> {
  const memory = new Map<string, number>();
  if (!path) return memory;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return memory;
  }
  const file = parsed as { version?: unknown; latencies?: unknown };
  if (file?.version !== VERSION || typeof file.latencies !== 'object' || file.latencies === null)
    return memory;
  for (const [id, ms] of Object.entries(file.latencies as Record<string, unknown>))
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) memory.set(id, ms);
  return memory;
}

/**
 * The memory after a search: each platform that was asked takes the mean of what
 * was remembered and what it took now (one slow answer does not overturn the
 * order, a lasting change moves it within a few runs). Platforms not asked keep
 * their figure. Pure.
 */
export function mergeLatencies(
  memory: ReadonlyMap<string, number>,
  outcomes: readonly Pick<Outcome, 'platformId' | 'status' | 'responseTime'>[],
): Map<string, number> {
  const next = new Map(memory);
  for (const outcome of outcomes) {
    if (outcome.status === 'invalid') continue; // nothing was sent
    const before = memory.get(outcome.platformId);
    const ms = Math.round(outcome.responseTime);
    next.set(outcome.platformId, before === undefined ? ms : Math.round((before + ms) / 2));
  }
  return next;
}

/** Writes the memory at once (temporary file, then rename); a failure only loses the memory. */
export function writeLatencyMemory(path: string | undefined, memory: ReadonlyMap<string, number>): boolean {
  if (!path) return false;
  const latencies = Object.fromEntries([...memory].sort(([a], [b]) => (a < b ? -1 : 1)));
  try {
    writeFileAtomic(path, `${JSON.stringify({ version: VERSION, latencies })}\n`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Platforms that may be slow: remembered at or over `thresholdMs`, or not remembered at
 * all (a first run knows no answer time). The command line sends their control checks
 * alongside the checks (a slow hit would otherwise wait its latency again for its
 * control), and the others' only after a hit. Pure.
 */
export function maybeSlow(
  memory: ReadonlyMap<string, number>,
  thresholdMs: number,
): (platform: { readonly id: string }) => boolean {
  return (platform) => (memory.get(platform.id) ?? Number.POSITIVE_INFINITY) >= thresholdMs;
}
