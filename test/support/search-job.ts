/**
 * A search record and search-job dependencies for the runner's tests: a free
 * search of one client, queued, and deps with no cache, unmeasured latencies of
 * 1 s and a fixed clock; each test overrides what it is about.
 */
import type { Platform } from '../../src/catalogue/platform.js';
import type { Engine } from '../../src/engine/engine.js';
import { LocalEventHub } from '../../src/runner/events.js';
import type { SearchJobDeps, SearchJobStore } from '../../src/runner/search-job.js';
import { recentLatencies } from '../../src/store/recent-latencies.js';
import type { SearchRecord } from '../../src/store/store.js';

export function queuedSearch(
  id: string,
  username: string,
  platformIds: readonly string[],
  overrides: Partial<SearchRecord> = {},
): SearchRecord {
  return {
    id,
    username,
    state: 'queued',
    tier: 'free',
    client: 'ip:127.0.0.1',
    platformIds: [...platformIds],
    estimatedSeconds: 1,
    createdAt: 0,
    ...overrides,
  };
}

export function jobDeps(
  engine: Engine,
  store: SearchJobStore,
  platforms: readonly Platform[],
  overrides: Partial<SearchJobDeps> = {},
): SearchJobDeps {
  return {
    engine,
    store,
    events: new LocalEventHub(),
    platformsById: new Map(platforms.map((p) => [p.id, p])),
    cache: { hitSeconds: 0, missSeconds: 0, otherSeconds: 0 },
    latencies: () => recentLatencies(store),
    unmeasuredLatencyMs: 1000,
    now: () => 1,
    ...overrides,
  };
}
