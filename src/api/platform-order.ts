/**
 * Results listed by platform name (`byPlatformName`, src/engine/verdict/outcome.ts),
 * compared by rank: each catalogue name's place among them all, found once with
 * the same collator. A poll of a running search sorts its few hundred hits every
 * time; comparing through the collator is costly under many searches at once,
 * comparing two integers costs next to nothing. Names
 * the collator holds equal share a rank, so the order is the collator's exactly
 * (a stable sort keeps equals as they came); a name outside the catalogue
 * (a platform removed since the search) is compared through the collator.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { byPlatformName, compareNames } from '../engine/verdict/outcome.js';

export type ResultOrder = (a: Pick<Outcome, 'platform'>, b: Pick<Outcome, 'platform'>) => number;

/** The comparison `byPlatformName` makes, by the rank of each of `names`. */
export function platformOrder(names: Iterable<string>): ResultOrder {
  const sorted = [...new Set(names)].sort(compareNames);
  const rank = new Map<string, number>();
  for (const [i, name] of sorted.entries()) {
    const previous = sorted[i - 1];
    const same = previous !== undefined && compareNames(previous, name) === 0;
    rank.set(name, same ? rank.get(previous)! : i);
  }
  return (a, b) => {
    const ra = rank.get(a.platform);
    const rb = rank.get(b.platform);
    return ra === undefined || rb === undefined ? byPlatformName(a, b) : ra - rb;
  };
}
