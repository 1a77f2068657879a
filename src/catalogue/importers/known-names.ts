/**
 * The `known` names of an imported entry: the upstream's claimed accounts that
 * userscout can search, and an unclaimed name that fits the entry's username
 * rule, made up when the upstream gives none. Pure and deterministic.
 */
import { ruleViolation, type UsernameRule, usernameProblem } from '../username-rule.js';

export type KnownNames =
  | { readonly claimed: string[]; readonly unclaimed: string[] }
  | { readonly reason: string };

/** A name userscout would actually send to this platform. */
function isSearchable(rule: UsernameRule, name: string): boolean {
  return usernameProblem(name) === undefined && ruleViolation(rule, name) === undefined;
}

/**
 * Claimed names that break the platform's own rule are kept on purpose: the
 * loader then refuses the entry and says why, as the upstream data is wrong.
 */
export function knownNames(
  rule: UsernameRule,
  claimed: readonly string[],
  unclaimed: readonly string[] = [],
): KnownNames {
  const usable = [...new Set(claimed.map((n) => n.trim()).filter((n) => n && !usernameProblem(n)))];
  if (usable.length === 0) {
    return {
      reason:
        claimed.length === 0
          ? 'no known account name'
          : `no known account name userscout can search (${claimed.map((n) => JSON.stringify(n)).join(', ')})`,
    };
  }
  const given = unclaimed.filter((n) => isSearchable(rule, n) && !usable.includes(n));
  if (given.length > 0) return { claimed: usable, unclaimed: [...new Set(given)] };
  const made = improbableName(rule, usable);
  if (made === undefined) {
    return {
      reason: `no improbable unclaimed name fits the username rule ${rule.pattern?.source ?? ''}`.trim(),
    };
  }
  return { claimed: usable, unclaimed: [made] };
}

const BASE = 'noonewouldeverusethis7';

/** The first of a fixed list of improbable names that the rule accepts and nobody listed as claimed. */
export function improbableName(rule: UsernameRule, taken: readonly string[]): string | undefined {
  for (const name of candidates()) {
    if (!taken.includes(name) && isSearchable(rule, name)) return name;
  }
  return undefined;
}

/** Shorter names are no longer improbable, so candidates stop at this length. */
const MIN_IMPROBABLE_LENGTH = 5;

function* candidates(): Generator<string> {
  yield BASE;
  yield BASE.slice(0, -1);
  yield 'NoOneWouldEverUseThis7';
  yield 'NOONEWOULDEVERUSETHIS';
  for (const sep of ['_', '-', '.']) yield ['noone', 'would', 'ever', 'use', 'this7'].join(sep);
  // Short limits: keep the prefix, and the digit where a digit is welcome.
  for (let length = BASE.length - 1; length >= MIN_IMPROBABLE_LENGTH; length--) {
    yield `${BASE.slice(0, length - 1)}7`;
    yield BASE.slice(0, length);
    yield BASE.slice(0, length).toUpperCase();
  }
  // Long minimums.
  for (let repeat = 2; repeat <= 4; repeat++) yield BASE.repeat(repeat);
  // Numeric identifiers: large, unlikely numbers of common widths.
  for (const width of [12, 10, 9, 8, 15, 18, 6, 20, MIN_IMPROBABLE_LENGTH]) yield '9'.repeat(width);
}
