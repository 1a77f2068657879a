/** Entries kept per (origin, identity), in one order whatever order a store returns them in. */
export function byOriginAndIdentity<T extends { readonly origin: string; readonly identity: string }>(
  entries: readonly T[],
): T[] {
  return [...entries].sort((a, b) => `${a.origin} ${a.identity}`.localeCompare(`${b.origin} ${b.identity}`));
}
