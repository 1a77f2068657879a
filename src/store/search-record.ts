/**
 * How every backend turns what it stored of a search back into the record and
 * progress the Store gives: one home, so the backends differ only in how they
 * read their columns or fields.
 */
import type { OutcomeStatus } from '../engine/verdict/outcome.js';
import {
  emptyByStatus,
  type FollowUp,
  type SearchProgress,
  type SearchRecord,
  type SearchState,
  type Tier,
} from './store.js';

/** A stored search's fields, each optional one null (or undefined) when absent. */
export interface StoredSearchFields {
  readonly id: string;
  readonly username: string;
  readonly state: SearchState;
  readonly tier: Tier;
  readonly client: string;
  readonly private: boolean;
  readonly platformIds: readonly string[];
  readonly estimatedSeconds: number;
  readonly createdAt: number;
  readonly startedAt: number | null | undefined;
  readonly finishedAt: number | null | undefined;
  readonly error: string | null | undefined;
  readonly recursive: boolean;
  readonly followUps: readonly FollowUp[] | null | undefined;
}

/** The record; fields absent rather than undefined, so it reads back deep-equal to the one created. */
export function searchRecordOf(f: StoredSearchFields): SearchRecord {
  return {
    id: f.id,
    username: f.username,
    state: f.state,
    tier: f.tier,
    client: f.client,
    ...(f.private ? { private: true as const } : {}),
    platformIds: f.platformIds,
    estimatedSeconds: f.estimatedSeconds,
    createdAt: f.createdAt,
    ...(f.startedAt == null ? {} : { startedAt: f.startedAt }),
    ...(f.finishedAt == null ? {} : { finishedAt: f.finishedAt }),
    ...(f.error == null ? {} : { error: f.error }),
    ...(f.recursive ? { recursive: true as const } : {}),
    ...(f.followUps == null ? {} : { followUps: f.followUps }),
  };
}

/** Progress from the number of outcomes of each status. */
export function progressOf(countOf: (status: OutcomeStatus) => number): SearchProgress {
  const byStatus = emptyByStatus();
  let checked = 0;
  for (const status of Object.keys(byStatus) as OutcomeStatus[]) {
    byStatus[status] = countOf(status);
    checked += byStatus[status];
  }
  return { checked, hits: byStatus.hit, byStatus };
}
