/**
 * Searches and their outcomes: the role of a store that the API, the runner and the
 * watchlists read and write as a search is asked for, runs and is shown.
 */
import type { Outcome, OutcomeStatus } from '../../engine/verdict/outcome.js';
import type { RoleMethods } from './role.js';

/** Internal life of a search. The API shows `queued` as `running` (it has started from the client's view). */
export const SEARCH_STATES = ['queued', 'running', 'completed', 'error'] as const;
export type SearchState = (typeof SEARCH_STATES)[number];
/** States a search does not leave: its outcomes are all in (backends then store them packed). */
export const FINISHED_STATES: ReadonlySet<SearchState> = new Set(['completed', 'error']);
/** Whether a search has finished (see FINISHED_STATES), narrowing its state. */
export const isFinished = (state: SearchState): state is 'completed' | 'error' => FINISHED_STATES.has(state);

export const TIERS = ['free', 'professional'] as const;
export type Tier = (typeof TIERS)[number];

export interface SearchRecord {
  readonly id: string;
  readonly username: string;
  readonly state: SearchState;
  readonly tier: Tier;
  /** Who asked: `ip:ADDRESS` or `key:KEYID`. */
  readonly client: string;
  /**
   * Readable only by `client` (a professional key); otherwise by anyone with the id.
   * Absent when not private, so a record reads back deep-equal to the one created.
   */
  readonly private?: true | undefined;
  /** Ids of the platforms the search covers, fixed when it is created. */
  readonly platformIds: readonly string[];
  /** Seconds the search was expected to take when it was created. */
  readonly estimatedSeconds: number;
  readonly createdAt: number;
  readonly startedAt?: number | undefined;
  readonly finishedAt?: number | undefined;
  readonly error?: string | undefined;
  /**
   * Asked with `recursive: true`: once completed, the new names in its hits' profiles are
   * searched too (src/api/follow-ups.ts). Absent when not asked.
   */
  readonly recursive?: true | undefined;
  /** The follow-up searches a recursive search started (or could not), once they are recorded. */
  readonly followUps?: readonly FollowUp[] | undefined;
}

/** A name found in a recursive search's hits, and the search it started (or why none). */
export interface FollowUp {
  readonly username: string;
  /** The platform id of the hit whose profile named it. */
  readonly from: string;
  readonly queryId?: string | undefined;
  /** Why it was not searched (the search limit, a full queue, a name no platform accepts). */
  readonly notSearched?: string | undefined;
}

/** Where a page of a client's searches ends: the last one listed. */
export interface SearchCursor {
  readonly createdAt: number;
  readonly id: string;
}

export interface StoredOutcome {
  /**
   * 1, 2, 3... in the order outcomes were stored for this search; SSE event ids.
   * Ascending, with a gap where an outcome was replaced (`replaceOutcome`).
   */
  readonly seq: number;
  readonly outcome: Outcome;
}

export interface SearchProgress {
  readonly checked: number;
  readonly hits: number;
  readonly byStatus: Readonly<Record<OutcomeStatus, number>>;
}

export interface SearchSnapshot {
  readonly search: SearchRecord;
  readonly progress: SearchProgress;
  readonly outcomes: StoredOutcome[];
}

export interface SearchStore {
  /** Throws UserscoutError 'duplicate_id' when a search has this id already. */
  createSearch(search: SearchRecord): Promise<void>;
  getSearch(id: string): Promise<SearchRecord | undefined>;
  /** Moves a search to another state; fields given are set too. */
  updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void>;
  /**
   * Stores several outcomes at once, all or none (one transaction, one round
   * trip), in the order given. Returns each one's seq in that order, undefined
   * for a platform stored already or given twice (the first one counts).
   * Throws 'search_not_found' when there is no such search, storing nothing.
   */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]>;
  /**
   * Replaces a platform's stored outcome in a search with a later answer (the
   * platform checked again). The later answer takes the next seq, as
   * an outcome added now would, so whoever follows by seq (`afterSeq`, SSE ids)
   * sees it; the outcome replaced is no longer listed, and its seq is never
   * given again (a gap). Progress: `checked` unchanged, one count moves from the
   * old status to the new. Atomic, like `addOutcomes`. Returns the new seq, or
   * undefined when this platform has no outcome in this search (nothing is
   * stored then). Throws 'search_not_found' as `addOutcomes` does.
   */
  replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined>;
  /** Outcomes in seq order, after `afterSeq` when given, only the given statuses when given. */
  listOutcomes(
    searchId: string,
    options?: { afterSeq?: number; statuses?: readonly OutcomeStatus[] },
  ): Promise<StoredOutcome[]>;
  progress(searchId: string): Promise<SearchProgress>;
  /**
   * A search with its progress and its outcomes (only the given statuses when
   * given), read at one moment in one call: what a poll shows. Undefined when
   * there is no such search. Its outcomes, and the whole snapshot, may be frozen
   * and shared with other reads: a backend may hand the same snapshot again while
   * nothing of a search not finished changed, so what a caller derives from one
   * may be kept by it (src/api/search-view.ts).
   */
  snapshot(
    id: string,
    options?: { statuses?: readonly OutcomeStatus[] },
  ): Promise<SearchSnapshot | undefined>;
  /**
   * Up to `limit` searches of one client (`SearchRecord.client`), newest first
   * (by createdAt, then id, both descending), only those after `before` in that
   * order when given: pages that never skip or repeat a search.
   */
  listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]>;
  /** Searches still queued or running (to resume after a restart), oldest first. */
  unfinishedSearches(): Promise<SearchRecord[]>;
  /** Deletes searches created before `before` (ms epoch) with their outcomes; returns how many. */
  sweepSearches(before: number): Promise<number>;
}

export const SEARCH_STORE_METHODS: RoleMethods<SearchStore> = {
  createSearch: true,
  getSearch: true,
  updateSearch: true,
  addOutcomes: true,
  replaceOutcome: true,
  listOutcomes: true,
  progress: true,
  snapshot: true,
  listSearchesByClient: true,
  unfinishedSearches: true,
  sweepSearches: true,
};
