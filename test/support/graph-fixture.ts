/**
 * A search and its follow-up as the API gives them, for the tests of the graph
 * and its writers: alice's hit on Alpha links to her account on Bravo, to bob's
 * on Charlie and to a page of her own; her hit on Bravo carries what a hostile
 * site may write (markup, quotes, line breaks, controls, a formula).
 */
import type { GraphSearch } from '../../src/report/graph.js';

/** Every kind of text that can break a file written naively. */
export const HOSTILE =
  '=HYPERLINK("https://evil.test")\n<b>Alice & co</b> "quoted" \'single\'\r\nend\x00\x07\x1b[31m\ud800\ttab ]]> --> <!-- <![CDATA[ x';

/** HOSTILE as the graph keeps it: the characters XML cannot hold dropped. */
export const HOSTILE_KEPT =
  '=HYPERLINK("https://evil.test")\n<b>Alice & co</b> "quoted" \'single\'\r\nend[31m\ttab ]]> --> <!-- <![CDATA[ x';

export const alice: GraphSearch = {
  queryId: 'q-alice',
  username: 'alice',
  results: [
    {
      platform: 'Alpha',
      platformId: 'alpha',
      category: 'social',
      url: 'https://alpha.test/u/alice',
      status: 'hit',
      profile: {
        fullName: 'Alice A.',
        followers: 12,
        links: ['https://bravo.test/u/alice', 'https://charlie.test/u/bob', 'https://alice.example/'],
      },
    },
    {
      platform: 'Bravo',
      platformId: 'bravo',
      category: 'coding',
      url: 'https://bravo.test/u/alice',
      status: 'hit',
      profile: { bio: HOSTILE, website: 'https://alice.example/' },
    },
    {
      platform: 'Charlie',
      platformId: 'charlie',
      category: 'social',
      url: 'https://charlie.test/u/alice',
      status: 'miss',
    },
  ],
  links: [
    { from: 'alpha', to: 'bravo', username: 'alice', url: 'https://bravo.test/u/alice' },
    { from: 'alpha', to: 'charlie', username: 'bob', url: 'https://charlie.test/u/bob' },
  ],
  followUps: [
    { username: 'bob', from: 'alpha', queryId: 'q-bob' },
    { username: 'rabbit', from: 'alpha', notSearched: 'search limit reached' },
  ],
};

export const bob: GraphSearch = {
  queryId: 'q-bob',
  username: 'bob',
  results: [
    {
      platform: 'Charlie',
      platformId: 'charlie',
      category: 'social',
      url: 'https://charlie.test/u/bob',
      status: 'hit',
    },
  ],
};
