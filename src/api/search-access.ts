/**
 * Who may read a search. By default anyone with its id (a random UUID, which
 * the share link relies on); a private search only the key that started it. Every
 * per-search read asks here, and answers a search it may not show as not found,
 * so that a private search's existence is not revealed either.
 */
import type { SearchRecord } from '../store/store.js';
import type { Caller } from './auth.js';

/** Whether `caller` may read `search`. Pure. */
export function canRead(search: Pick<SearchRecord, 'private' | 'client'>, caller: Caller): boolean {
  return search.private !== true || search.client === caller.client;
}
