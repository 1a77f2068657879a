/**
 * The rules every TransportMemoryStore keeps (src/store/transport-memory.ts), as one suite run
 * against each backend: `describeTransportMemoryStoreContract` gets a fresh store per test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Transport } from '../src/catalogue/platform.js';
import type { RememberedTransport, TransportMemoryStore } from '../src/store/transport-memory.js';
import { byOriginAndIdentity } from './support/by-origin.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

function entry(
  origin: string,
  identity: string,
  transport: Transport,
  expiresAt = T0 + 60_000,
  at = T0,
): RememberedTransport {
  return { origin, identity, transport, at, expiresAt };
}

export function describeTransportMemoryStoreContract(
  name: string,
  open: () => { store: TransportMemoryStore; close: () => Promise<void> },
): void {
  describe(`TransportMemoryStore contract: ${name}`, () => {
    let store: TransportMemoryStore;
    let close: () => Promise<void>;

    beforeEach(() => {
      ({ store, close } = open());
    });
    afterEach(async () => {
      await close();
    });

    it('holds nothing at first', async () => {
      expect(await store.remembered(T0)).toEqual([]);
    });

    it('keeps a transport per origin and identity, as given', async () => {
      await store.keep(entry('https://a.example', 'default', 'impersonate'));
      await store.keep(entry('https://a.example', 'addr:10.0.0.2', 'browser'));
      await store.keep(entry('https://b.example', 'default', 'browser', T0 + 90_000, T0 + 10));
      expect(byOriginAndIdentity(await store.remembered(T0))).toEqual(
        byOriginAndIdentity([
          entry('https://a.example', 'default', 'impersonate'),
          entry('https://a.example', 'addr:10.0.0.2', 'browser'),
          entry('https://b.example', 'default', 'browser', T0 + 90_000, T0 + 10),
        ]),
      );
    });

    it('replaces the transport of an origin and identity with the one kept last', async () => {
      await store.keep(entry('https://a.example', 'default', 'impersonate'));
      await store.keep(entry('https://a.example', 'default', 'browser', T0 + 120_000, T0 + 5));
      expect(await store.remembered(T0 + 5)).toEqual([
        entry('https://a.example', 'default', 'browser', T0 + 120_000, T0 + 5),
      ]);
    });

    it('forgets a transport once it expires', async () => {
      await store.keep(entry('https://a.example', 'default', 'impersonate', T0 + 1_000));
      await store.keep(entry('https://b.example', 'default', 'browser', T0 + 5_000));
      expect(await store.remembered(T0 + 1_000)).toEqual([
        entry('https://b.example', 'default', 'browser', T0 + 5_000),
      ]);
      expect(await store.remembered(T0 + 5_000)).toEqual([]);
      // An expired one read again later is still gone.
      expect(await store.remembered(T0)).toEqual([]);
    });

    it('keeps origins and identities with any characters', async () => {
      const odd = entry('https://{username}.example.com', 'proxy:http://u:p@10.0.0.1:8080', 'browser');
      await store.keep(odd);
      expect(await store.remembered(T0)).toEqual([odd]);
    });
  });
}
