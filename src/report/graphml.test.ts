import { describe, expect, it } from 'vitest';
import { alice, bob, HOSTILE_KEPT } from '../../test/support/graph-fixture.js';
import { readGraphMl } from '../../test/support/read-graph.js';
import { searchGraph } from './graph.js';
import { escapeXml, graphMl } from './graphml.js';

describe('graphMl', () => {
  it('reads back, through an XML parser, as the same nodes and edges with their properties', () => {
    const graph = searchGraph([alice, bob]);
    const read = readGraphMl(graphMl(graph));
    expect(read.directed).toBe(true);
    expect(read.nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    expect(read.edges.map((e) => [e.source, e.target, e.data.label])).toEqual(
      graph.edges.map((e) => [e.source, e.target, e.type]),
    );
    const alpha = read.nodes.find((n) => n.id === 'account:alpha:alice')!;
    expect(alpha.data).toMatchObject({
      label: 'Alpha: alice',
      kind: 'account',
      followers: '12',
      fullName: 'Alice A.',
    });
    expect([...read.keys.values()].find((k) => k.for === 'node' && k.name === 'followers')!.type).toBe(
      'long',
    );
    // Every edge's ends are nodes of the file.
    const ids = new Set(read.nodes.map((n) => n.id));
    for (const edge of read.edges) expect(ids.has(edge.source) && ids.has(edge.target)).toBe(true);
  });

  it("keeps a hostile site's text as data: markup, quotes, line breaks and CDATA ends read back as text", () => {
    const xml = graphMl(searchGraph([alice]));
    const bravo = readGraphMl(xml).nodes.find((n) => n.id === 'account:bravo:alice')!;
    expect(bravo.data.bio).toBe(HOSTILE_KEPT);
    // Nothing a site wrote opens an element or leaves a control character XML 1.0 refuses.
    expect(xml).not.toContain('<b>');
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
  });

  it('escapes what would end an attribute or change white space', () => {
    expect(escapeXml(`a"b'c<d>&\r\n\t`)).toBe('a&quot;b&apos;c&lt;d&gt;&amp;&#13;&#10;&#9;');
    const hostileName = { ...alice, username: 'a"><x', followUps: [], links: [] };
    const read = readGraphMl(graphMl(searchGraph([hostileName])));
    expect(read.nodes[0]!.id).toBe('name:a"><x');
    expect(read.edges[0]!.source).toBe('name:a"><x');
  });
});
