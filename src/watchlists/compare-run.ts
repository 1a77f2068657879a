/**
 * Compares a run's outcomes with what earlier runs saw, per name and platform.
 * Pure. A hit that became a miss is `gone`, a miss that became a hit is
 * `new_hit`, and an answer after a run without one is `changed`. Non-answers
 * (unknown, error, invalid) never count as a change: they keep the last answer,
 * so a hit behind a timeout today and a miss tomorrow is still `gone`.
 * A name's first run sets its baseline and reports nothing.
 */
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import type { Baseline, BaselineEntry, ChangeKind, WatchChange } from '../store/watchlists.js';

export type ChangeDraft = Pick<
  WatchChange,
  'username' | 'platformId' | 'platform' | 'url' | 'kind' | 'from' | 'to'
>;

function isAnswer(status: OutcomeStatus): status is 'hit' | 'miss' {
  return status === 'hit' || status === 'miss';
}

/** What one platform's new status means against its entry, if anything. */
function changeOf(entry: BaselineEntry | undefined, status: OutcomeStatus): ChangeKind | undefined {
  if (!entry || !isAnswer(status)) return undefined;
  if (entry.answer !== undefined && entry.answer !== status) return status === 'hit' ? 'new_hit' : 'gone';
  if (!isAnswer(entry.last)) return 'changed';
  return undefined;
}

/**
 * The changes of one run and the baseline after it. `results` has the names
 * searched in this run; names not in it keep their baseline as it is, and so
 * do platforms a search did not reach.
 */
export function compareRun(
  baseline: Baseline,
  results: ReadonlyMap<string, readonly Outcome[]>,
): { changes: ChangeDraft[]; baseline: Baseline } {
  const next: Record<string, Record<string, BaselineEntry>> = { ...baseline };
  const changes: ChangeDraft[] = [];
  for (const [username, outcomes] of results) {
    const before = baseline[username];
    const entries: Record<string, BaselineEntry> = { ...before };
    for (const outcome of outcomes) {
      const entry = before?.[outcome.platformId];
      const kind = before ? changeOf(entry, outcome.status) : undefined;
      if (kind && entry)
        changes.push({
          username,
          platformId: outcome.platformId,
          platform: outcome.platform,
          url: outcome.url,
          kind,
          from: kind === 'changed' ? entry.last : (entry.answer ?? entry.last),
          to: outcome.status,
        });
      const answer = isAnswer(outcome.status) ? outcome.status : entry?.answer;
      entries[outcome.platformId] = answer ? { last: outcome.status, answer } : { last: outcome.status };
    }
    next[username] = entries;
  }
  return { changes, baseline: next };
}
