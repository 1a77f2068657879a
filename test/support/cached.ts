/**
 * Puts an outcome in a store's outcome cache as a search would: a search of that username
 * stores it, and the cache notes it. The cache refers to the search's record, so a test
 * needs both.
 */
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import type { OutcomeCache } from '../../src/store/roles/outcome-cache.js';
import type { SearchStore } from '../../src/store/roles/search-store.js';

let searches = 0;

/** A new search of `username` holding `outcomes`, each cached until `expiresAt`: what a read gives back. */
export async function putCached(
  store: SearchStore & OutcomeCache,
  username: string,
  outcomes: Outcome | readonly Outcome[],
  expiresAt: number,
  cachedAt = expiresAt - 60 * 60_000,
): Promise<Outcome[]> {
  const list = Array.isArray(outcomes) ? (outcomes as readonly Outcome[]) : [outcomes as Outcome];
  const id = `cached-${process.pid}-${++searches}`;
  await store.createSearch({
    id,
    username,
    state: 'completed',
    tier: 'free',
    client: 'test',
    platformIds: list.map((o) => o.platformId),
    estimatedSeconds: 1,
    createdAt: cachedAt,
  });
  // As a search stores it: without `cachedAt`, every other key where it was.
  const stored = list.map((o) => {
    const { cachedAt: _, ...evidence } = o.evidence;
    return { ...o, evidence };
  });
  await store.addOutcomes(id, stored);
  await store.putCachedOutcomes(
    username,
    list.map((o) => ({ searchId: id, platformId: o.platformId, cachedAt, expiresAt })),
  );
  return stored.map((o) => ({ ...o, evidence: { ...o.evidence, cachedAt } }));
}
