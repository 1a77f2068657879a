/**
 * The simulated web of the recursive-search tests, one fixture so each layer
 * meets the same names: Alpha's profile
 * of alice links to Bravo's profile of bob and Charlie's of rabbit; Bravo's
 * profile of bob links on to Charlie's of carol.
 */
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from './catalogue.js';

export const followUpsSpecs = [
  entry('Alpha'),
  entry('Bravo', { known: { claimed: ['bob'], unclaimed: ['x-none-1'] } }),
  entry('Charlie', { known: { claimed: ['rabbit'], unclaimed: ['x-none-1'] } }),
];
export const followUpsCatalogue = catalogueOf(followUpsSpecs);

const page = (name: string, sameAs: string[]): Behaviour => ({
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: `<!DOCTYPE html><html><head><title>${name}</title>
<script type="application/ld+json">${JSON.stringify({ '@type': 'Person', name, sameAs })}</script>
</head><body><h1>${name}</h1></body></html>`,
});

export function followUpsOverride(platform: { id: string }, username: string): Behaviour | undefined {
  if (platform.id === 'alpha' && username === 'alice')
    return page('Alice', ['https://bravo.test/u/bob', 'https://charlie.test/u/rabbit']);
  if (platform.id === 'bravo' && username === 'bob') return page('Bob', ['https://charlie.test/u/carol']);
  return undefined;
}

/** A simulated web of that catalogue (not started). */
export function followUpsSim(): SimWeb {
  const { routes } = emulateCatalogue(followUpsCatalogue.platforms, followUpsCatalogue.shields, {
    override: followUpsOverride,
  });
  return new SimWeb({ routes });
}
