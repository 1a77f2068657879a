/**
 * Freezes a catalogue all the way down (platforms, signals, their regexes), so
 * nothing can change it during a search. The loader ends with it, and so does
 * a thread that receives a structured clone, which arrives unfrozen (thread-copy.ts).
 */
import type { Catalogue } from './platform.js';

export function freezeCatalogue(catalogue: Catalogue): Catalogue {
  return deepFreeze(catalogue, new WeakSet());
}

/** Freezes any plain data all the way down (outcomes kept to be read again, src/store/polled-outcomes.ts). */
export function freezeDeep<T>(value: T): T {
  return deepFreeze(value, new WeakSet());
}

function deepFreeze<T>(value: T, seen: WeakSet<object>): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  // An array's elements directly: its key list would be one new string per index.
  if (Array.isArray(value)) for (const item of value) deepFreeze(item, seen);
  else
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}
