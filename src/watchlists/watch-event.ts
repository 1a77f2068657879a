/**
 * The JSON event a webhook receives after a run: its shape is built here
 * once, from the run and its changes. Pure.
 */
import type { RunSummary, Watchlist } from '../store/watchlists.js';
import type { ChangeDraft } from './compare-run.js';

export const WATCH_EVENT_TYPES = ['watchlist.changes', 'watchlist.run'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

export interface WatchEvent {
  readonly id: string;
  readonly type: WatchEventType;
  readonly createdAt: string;
  readonly watchlist: { readonly id: string; readonly names: readonly string[] };
  readonly run: {
    readonly id: string;
    readonly startedAt: string;
    readonly finishedAt: string;
    readonly searches: Readonly<Record<string, string>>;
    readonly skipped: Readonly<Record<string, string>>;
  };
  readonly changes: readonly ChangeDraft[];
}

/** The event for a finished run, or undefined when the watchlist wants none for it. */
export function watchEventOf(
  watchlist: Watchlist,
  run: RunSummary,
  changes: readonly ChangeDraft[],
  eventId: string,
): WatchEvent | undefined {
  if (!watchlist.spec.webhookUrl) return undefined;
  if (changes.length === 0 && watchlist.spec.notify !== 'every_run') return undefined;
  return {
    id: eventId,
    type: changes.length > 0 ? 'watchlist.changes' : 'watchlist.run',
    createdAt: new Date(run.finishedAt).toISOString(),
    watchlist: { id: watchlist.id, names: watchlist.spec.names },
    run: {
      id: run.id,
      startedAt: new Date(run.startedAt).toISOString(),
      finishedAt: new Date(run.finishedAt).toISOString(),
      searches: run.searches,
      skipped: run.skipped,
    },
    changes,
  };
}

/** The next time a watchlist is due after a run planned for `plannedAt`: missed runs are run once, not caught up. */
export function nextRunAt(plannedAt: number, intervalMs: number, now: number): number {
  let next = plannedAt + intervalMs;
  if (next <= now) next = now + intervalMs;
  return next;
}
