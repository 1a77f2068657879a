/**
 * Counterparts: the entries of other site lists (WhatsMyName, Sherlock,
 * Maigret, imported into our format) that check the same platform as one of
 * ours. The same check address (merge.ts `checkKey`, with `www.` dropped) is a
 * counterpart whose answers can be compared rule by rule; the same host with
 * another address, or one of our platform's other hosts (`otherHosts`: the same site at
 * an older or other address), is a counterpart that checks the site another way. Pure.
 */
import { hostsOf, templateHost } from './hosts.js';
import { checkKey } from './merge.js';
import type { Platform } from './platform.js';

export type ReferenceSource = 'whatsmyname' | 'sherlock' | 'maigret';

export const REFERENCE_SOURCES: readonly ReferenceSource[] = ['whatsmyname', 'sherlock', 'maigret'];

/** One entry of a reference list, as our importer reads it. */
export interface ReferenceEntry {
  readonly source: ReferenceSource;
  readonly platform: Platform;
  /** Statuses the list records for a missing account (WhatsMyName's `m_code`), when it records one. */
  readonly recordedMissing?: readonly number[];
}

export interface Counterpart extends ReferenceEntry {
  /** `address`: the same check address; `host`: the same host, another address. */
  readonly match: 'address' | 'host';
}

export interface ReferenceIndex {
  readonly byAddress: ReadonlyMap<string, readonly ReferenceEntry[]>;
  readonly byHost: ReadonlyMap<string, readonly ReferenceEntry[]>;
}

/** The identity of a platform's check: method, address without scheme or `www.`, POST body. */
export function addressKey(platform: Platform): string {
  const { url, method, body } = platform.check;
  const key = checkKey({
    profile: platform.profile,
    check: { url, method, ...(body === undefined ? {} : { body }) },
  });
  return key.replace(/^(POST )?www\./, '$1');
}

/** The host a platform is checked on, lower-case, without `www.`; `{}` where the username stands. */
export function hostKey(platform: Platform): string {
  return templateHost(platform.check.url);
}

export function indexReferences(entries: readonly ReferenceEntry[]): ReferenceIndex {
  const byAddress = new Map<string, ReferenceEntry[]>();
  const byHost = new Map<string, ReferenceEntry[]>();
  const add = (map: Map<string, ReferenceEntry[]>, key: string, entry: ReferenceEntry) => {
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  };
  for (const entry of entries) {
    add(byAddress, addressKey(entry.platform), entry);
    add(byHost, hostKey(entry.platform), entry);
  }
  return { byAddress, byHost };
}

/**
 * The counterparts of one of our platforms: same address first, then same host (the check
 * host, then each other host), in list order, each once.
 */
export function counterpartsOf(platform: Platform, index: ReferenceIndex): Counterpart[] {
  const same = index.byAddress.get(addressKey(platform)) ?? [];
  const onHosts = hostsOf(platform, 'checked').flatMap((h) => index.byHost.get(h) ?? []);
  const host = [...new Set(onHosts)].filter((e) => !same.includes(e));
  return [
    ...same.map((e): Counterpart => ({ ...e, match: 'address' })),
    ...host.map((e): Counterpart => ({ ...e, match: 'host' })),
  ];
}
