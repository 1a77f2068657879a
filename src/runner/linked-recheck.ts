/**
 * A link is a reason to look again: when a hit's profile links to another
 * platform's profile of the searched name, and that platform had not answered
 * (an error, or an answer that did not tell), the search checks it once more
 * and stores the later answer. Pure: which platforms a hit vouches for.
 */
import { accountLinks, type ProfileUrlMatcher } from '../engine/linked-accounts.js';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';

/** Outcomes of a platform that had not answered: a link to it earns one more check. */
const UNANSWERED: ReadonlySet<OutcomeStatus> = new Set(['error', 'unknown']);

export function isUnanswered(outcome: Outcome): boolean {
  return UNANSWERED.has(outcome.status);
}

/** The ids of the platforms a hit's profile links to for `username` (case-insensitive). */
export function linkedPlatforms(hit: Outcome, matcher: ProfileUrlMatcher, username: string): string[] {
  const name = username.toLowerCase();
  return accountLinks([hit], matcher)
    .filter((link) => link.username.toLowerCase() === name)
    .map((link) => link.to);
}
