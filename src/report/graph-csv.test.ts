import { describe, expect, it } from 'vitest';
import { alice, bob, HOSTILE_KEPT } from '../../test/support/graph-fixture.js';
import { csvObjects, readCsv } from '../../test/support/read-graph.js';
import { searchGraph } from './graph.js';
import { EDGE_COLUMNS, graphEdgesCsv, graphNodesCsv, NODE_COLUMNS } from './graph-csv.js';

describe('graph CSV', () => {
  const graph = searchGraph([alice, bob]);

  it('writes one record per node and per edge under a header, edges naming node ids', () => {
    const nodes = csvObjects(graphNodesCsv(graph));
    const edges = csvObjects(graphEdgesCsv(graph));
    expect(readCsv(graphNodesCsv(graph))[0]).toEqual([...NODE_COLUMNS]);
    expect(readCsv(graphEdgesCsv(graph))[0]).toEqual([...EDGE_COLUMNS]);
    expect(nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    expect(edges.map((e) => `${e.source} ${e.relationship} ${e.target}`)).toEqual(
      graph.edges.map((e) => `${e.source} ${e.type} ${e.target}`),
    );
    const ids = new Set(nodes.map((n) => n.id));
    for (const edge of edges) expect(ids.has(edge.source!) && ids.has(edge.target!)).toBe(true);
    expect(nodes.find((n) => n.id === 'account:alpha:alice')).toMatchObject({
      followers: '12',
      kind: 'account',
    });
    expect(edges.find((e) => e.target === 'name:rabbit')).toMatchObject({
      via: 'alpha',
      notSearched: 'search limit reached',
    });
  });

  it("quotes a hostile site's text whole, and disarms a formula", () => {
    const bravo = csvObjects(graphNodesCsv(graph)).find((n) => n.id === 'account:bravo:alice')!;
    // The spreadsheet rule of the outcome CSV: a cell that reads as a formula starts with an apostrophe.
    expect(bravo.bio).toBe(`'${HOSTILE_KEPT}`);
    const formulas = searchGraph([{ queryId: 'q', username: '-1+1', results: [] }]);
    const [node] = csvObjects(graphNodesCsv(formulas));
    // The id, which edges join on, never needs it: it starts with its kind.
    expect(node).toMatchObject({ id: 'name:-1+1', label: "'-1+1", username: "'-1+1" });
  });
});
