import { describe, expect, it } from 'vitest';
import { alice, bob, HOSTILE, HOSTILE_KEPT } from '../../test/support/graph-fixture.js';
import { graphText, searchGraph } from './graph.js';

describe('searchGraph', () => {
  it('links the name to its hits, their profiles to what they link to, and the name to its follow-ups', () => {
    const graph = searchGraph([alice]);
    expect(graph.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['name:alice', 'username'],
      ['account:alpha:alice', 'account'],
      ['account:bravo:alice', 'account'],
      ['account:charlie:bob', 'account'],
      ['url:https://alice.example/', 'url'],
      ['name:bob', 'username'],
      ['name:rabbit', 'username'],
    ]);
    expect(graph.edges.map((e) => `${e.source} -${e.type}-> ${e.target}`)).toEqual([
      'name:alice -has_account-> account:alpha:alice',
      'account:alpha:alice -links_to-> account:bravo:alice',
      'account:alpha:alice -links_to-> account:charlie:bob',
      'account:alpha:alice -links_to-> url:https://alice.example/',
      'name:alice -has_account-> account:bravo:alice',
      'account:bravo:alice -links_to-> url:https://alice.example/',
      'name:alice -followed_up-> name:bob',
      'name:alice -followed_up-> name:rabbit',
    ]);
    const alpha = graph.nodes.find((n) => n.id === 'account:alpha:alice')!;
    expect(alpha.label).toBe('Alpha: alice');
    expect(alpha.fields).toMatchObject({
      platform: 'Alpha',
      url: 'https://alpha.test/u/alice',
      status: 'hit',
      fullName: 'Alice A.',
      followers: 12,
    });
    expect(graph.edges.find((e) => e.target === 'name:rabbit')!.fields).toEqual({
      via: 'alpha',
      notSearched: 'search limit reached',
    });
  });

  it('marks an account known only from a link as not checked, named from the catalogue', () => {
    const graph = searchGraph([alice], (id) =>
      id === 'charlie' ? { name: 'Charlie', category: 'social' } : undefined,
    );
    expect(graph.nodes.find((n) => n.id === 'account:charlie:bob')!.fields).toMatchObject({
      platform: 'Charlie',
      category: 'social',
      status: 'not_checked',
      url: 'https://charlie.test/u/bob',
    });
  });

  it("adds a follow-up's own hits under its name, and its check's status to the account linked to", () => {
    const graph = searchGraph([alice, bob]);
    expect(graph.nodes.filter((n) => n.id === 'account:charlie:bob')).toHaveLength(1);
    expect(graph.nodes.find((n) => n.id === 'account:charlie:bob')!.fields.status).toBe('hit');
    expect(graph.nodes.find((n) => n.id === 'name:bob')!.fields.queryId).toBe('q-bob');
    expect(graph.edges).toContainEqual({
      source: 'name:bob',
      target: 'account:charlie:bob',
      type: 'has_account',
      fields: {},
    });
  });

  it('keeps a hostile text whole but for what XML cannot hold', () => {
    expect(graphText(HOSTILE)).toBe(HOSTILE_KEPT);
    const bravo = searchGraph([alice]).nodes.find((n) => n.id === 'account:bravo:alice')!;
    expect(bravo.fields.bio).toBe(HOSTILE_KEPT);
    // A surrogate pair (an emoji) is text, not half of one.
    expect(graphText('a\u{1F600}b')).toBe('a\u{1F600}b');
  });
});
