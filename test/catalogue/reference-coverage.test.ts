/**
 * A floor on how much of each public list the built-in catalogue covers, by
 * host: a list's enabled entry is covered when one of our enabled platforms is
 * checked, shows its profiles or lives on one of the hosts the list's entry uses,
 * or names that host among its `otherHosts` (the same site at an older or other
 * address, which we never ask: the list's entry is then the site we check).
 * Read from the reference lists beside the checkout; skipped without them.
 */
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import type { ReferenceSource } from '../../src/catalogue/counterparts.js';
import { hostsOf } from '../../src/catalogue/hosts.js';
import { readReferenceLists } from '../../src/catalogue/reference-lists.js';
import { referenceDir } from '../support/reference.js';

const dir = referenceDir();

/** The floor of each list: the share covered, and for WhatsMyName the most left out. */
const FLOORS: Readonly<Record<ReferenceSource, number>> = {
  whatsmyname: 0.99,
  sherlock: 0.97,
  // Below the others: the entries naming a site we check by an older or other host count
  // through our entry's `otherHosts`, but most of the rest read a name as found on markers
  // any page may carry, and are left out (docs/catalogue.md, "Left out").
  maigret: 0.95,
};

describe.runIf(dir)('coverage of the public lists', () => {
  const ours = new Set(
    loadBuiltinCatalogue()
      .catalogue.platforms.filter((p) => p.enabled)
      .flatMap((p) => hostsOf(p)),
  );
  const lists = dir ? readReferenceLists(dir) : [];

  it.each(Object.entries(FLOORS) as [ReferenceSource, number][])(
    'covers %s by host, at least %s',
    (source, floor) => {
      const enabled = lists.filter((e) => e.source === source && e.platform.enabled);
      const missing = enabled
        .filter((e) => !hostsOf(e.platform).some((h) => ours.has(h)))
        .map((e) => e.platform.name);
      const share = 1 - missing.length / enabled.length;
      console.log(
        `${source}: ${enabled.length - missing.length} of ${enabled.length} covered (${(share * 100).toFixed(1)}%); not covered: ${missing.slice(0, 60).join(', ')}${missing.length > 60 ? ', …' : ''}`,
      );
      expect(enabled.length).toBeGreaterThan(400);
      expect(share).toBeGreaterThanOrEqual(floor);
      if (source === 'whatsmyname') expect(missing.length).toBeLessThanOrEqual(26);
    },
  );
});
