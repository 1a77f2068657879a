import type { Outcome } from '../../src/engine/verdict/outcome.js';
import type { Store } from '../../src/store/store.js';

/** Stores one outcome through `addOutcomes` (the store's only write of outcomes): its seq, or undefined. */
export async function addOne(
  store: Pick<Store, 'addOutcomes'>,
  searchId: string,
  outcome: Outcome,
): Promise<number | undefined> {
  return (await store.addOutcomes(searchId, [outcome]))[0];
}
