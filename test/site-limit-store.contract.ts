/**
 * The rules every SiteLimitStore keeps (src/store/site-limits.ts), as one suite run against
 * each backend: `describeSiteLimitStoreContract` gets a fresh store per test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LearnedLimitEntry, SiteLimitStore } from '../src/store/site-limits.js';
import { byOriginAndIdentity } from './support/by-origin.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

function entry(
  origin: string,
  identity: string,
  perSecond: number,
  expiresAt = T0 + 60_000,
): LearnedLimitEntry {
  return { origin, identity, limit: { perSecond, stated: perSecond === 2, at: T0, expiresAt } };
}

export function describeSiteLimitStoreContract(
  name: string,
  open: () => { store: SiteLimitStore; close: () => Promise<void> },
): void {
  describe(`SiteLimitStore contract: ${name}`, () => {
    let store: SiteLimitStore;
    let close: () => Promise<void>;

    beforeEach(() => {
      ({ store, close } = open());
    });
    afterEach(async () => {
      await close();
    });

    it('holds nothing at first', async () => {
      expect(await store.learned(T0)).toEqual([]);
    });

    it('keeps a limit per origin and identity, as given', async () => {
      await store.keep(entry('a.example', 'default', 2));
      await store.keep(entry('a.example', 'addr:10.0.0.2', 0.75));
      await store.keep(entry('b.example', 'default', 1.5));
      expect(byOriginAndIdentity(await store.learned(T0))).toEqual(
        byOriginAndIdentity([
          entry('a.example', 'default', 2),
          entry('a.example', 'addr:10.0.0.2', 0.75),
          entry('b.example', 'default', 1.5),
        ]),
      );
    });

    it('replaces the limit of an origin and identity with the one kept last', async () => {
      await store.keep(entry('a.example', 'default', 2));
      await store.keep(entry('a.example', 'default', 1, T0 + 120_000));
      expect(await store.learned(T0)).toEqual([entry('a.example', 'default', 1, T0 + 120_000)]);
    });

    it('forgets a limit once it expires', async () => {
      await store.keep(entry('a.example', 'default', 2, T0 + 1_000));
      await store.keep(entry('b.example', 'default', 1, T0 + 5_000));
      expect(await store.learned(T0 + 1_000)).toEqual([entry('b.example', 'default', 1, T0 + 5_000)]);
      expect(await store.learned(T0 + 5_000)).toEqual([]);
      // An expired one read again later is still gone.
      expect(await store.learned(T0)).toEqual([]);
    });

    it('keeps the wait a site asked for', async () => {
      const quiet = {
        ...entry('a.example', 'default', 2),
        limit: { ...entry('a.example', 'default', 2).limit, quietUntil: T0 + 1_500 },
      };
      await store.keep(quiet);
      expect(await store.learned(T0)).toEqual([quiet]);
    });

    it('keeps origins and identities with any characters', async () => {
      const odd = entry('{username}.example.com', 'proxy:http://u:p@10.0.0.1:8080', 3);
      await store.keep(odd);
      expect(await store.learned(T0)).toEqual([odd]);
    });
  });
}
