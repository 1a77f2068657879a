/**
 * A link is a reason to look again: when a hit's profile links to another
 * platform's profile of the searched name, and that platform had not answered
 * (an error, or an answer that did not tell), the search checks it once more
 * and keeps the later answer. Pure: which platforms a hit vouches for, and
 * `LinkedRechecks`, which of a search's platforms are owed that check, and when.
 */
import { accountLinks, type ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';

/** Outcomes of a platform that had not answered: a link to it earns one more check. */
const UNANSWERED: ReadonlySet<OutcomeStatus> = new Set(['error', 'unknown']);

function isUnanswered(outcome: Outcome): boolean {
  return UNANSWERED.has(outcome.status);
}

/** The ids of the platforms a hit's profile links to for `username` (case-insensitive). */
export function linkedPlatforms(hit: Outcome, matcher: ProfileUrlMatcher, username: string): string[] {
  const name = username.toLowerCase();
  return accountLinks([hit], matcher)
    .filter((link) => link.username.toLowerCase() === name)
    .map((link) => link.to);
}

/**
 * One search's bookkeeping of linked rechecks, in whichever order the link and
 * the unanswered outcome come: an outcome that arrives for a platform linked
 * already is checked again before it is stored (`arriving`); one stored before
 * the link is checked again once the link is seen (`arriving` of the hit, or
 * `stored` when the link came while it was being written), and the later
 * answer replaces it. Each platform is checked again at most once.
 *
 * On resume (`resume`), the outcomes stored by an earlier run are read in seq
 * order: an unanswered one stored after a hit linking to it is already the
 * later answer (it was checked again before it was stored, or replaced, which
 * gives it a seq after the hit's), so it is not checked a third time.
 */
export class LinkedRechecks {
  readonly #matcher: ProfileUrlMatcher | undefined;
  readonly #username: string;
  /** Platforms the hits so far link to for the searched name. */
  readonly #linked = new Set<string>();
  /** Platforms checked again (or whose stored answer is the later one already). */
  readonly #rechecked = new Set<string>();
  /** Unanswered outcomes stored, by platform id, that no hit has linked to yet. */
  readonly #waiting = new Map<string, Outcome>();

  /** Without a matcher, no platform is ever owed a check. */
  constructor(matcher: ProfileUrlMatcher | undefined, username: string) {
    this.#matcher = matcher;
    this.#username = username;
  }

  /** The outcomes stored by an earlier run, in seq order: the stored ones owed a check now. */
  resume(stored: readonly Outcome[]): Outcome[] {
    const owed: Outcome[] = [];
    for (const outcome of stored) {
      if (isUnanswered(outcome) && this.#linked.has(outcome.platformId))
        this.#rechecked.add(outcome.platformId);
      else this.stored(outcome);
      owed.push(...this.#link(outcome));
    }
    return owed;
  }

  /**
   * An outcome that is about to be stored (fresh from the engine, from the cache,
   * or a later answer): whether to check it again before storing it, and the
   * stored outcomes its links make owed a check now.
   */
  arriving(outcome: Outcome): { readonly checkFirst: boolean; readonly owed: Outcome[] } {
    const owed = this.#link(outcome);
    return { checkFirst: this.#claim(outcome, this.#linked.has(outcome.platformId)), owed };
  }

  /** An outcome now stored: whether to check it again now (a link to it came while it was written). */
  stored(outcome: Outcome): boolean {
    if (this.#claim(outcome, this.#linked.has(outcome.platformId))) return true;
    if (isUnanswered(outcome) && !this.#rechecked.has(outcome.platformId))
      this.#waiting.set(outcome.platformId, outcome);
    return false;
  }

  /** Whether an unanswered outcome of a linked platform is checked again now: the one time it is. */
  #claim(outcome: Outcome, linked: boolean): boolean {
    if (!linked || !isUnanswered(outcome) || this.#rechecked.has(outcome.platformId)) return false;
    this.#rechecked.add(outcome.platformId);
    this.#waiting.delete(outcome.platformId);
    return true;
  }

  /** Notes a hit's links; the stored outcomes they make owed a check. */
  #link(outcome: Outcome): Outcome[] {
    if (!this.#matcher || outcome.status !== 'hit') return [];
    const owed: Outcome[] = [];
    for (const id of linkedPlatforms(outcome, this.#matcher, this.#username)) {
      this.#linked.add(id);
      const waiting = this.#waiting.get(id);
      if (waiting && this.#claim(waiting, true)) owed.push(waiting);
    }
    return owed;
  }
}
