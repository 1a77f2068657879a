/**
 * A graph (graph.ts) as GraphML, the XML format Gephi, yEd, Cytoscape and
 * NetworkX import: a directed graph, one `<key>` per property with its type,
 * every value escaped. Pure.
 */
import {
  COUNT_FIELDS,
  EDGE_FIELDS,
  type EdgeField,
  type Graph,
  NODE_FIELDS,
  type NodeField,
} from './graph.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser reads a raw CR as a line feed, and raw white space in an attribute as a space:
  // written as references, they read back as they were.
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
};

/** Text for an attribute value or element content (graph.ts has dropped what XML cannot hold). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r\n\t]/g, (c) => ESCAPES[c]!);
}

const key = (id: string, domain: 'node' | 'edge', name: string, type: 'string' | 'long') =>
  `  <key id="${id}" for="${domain}" attr.name="${name}" attr.type="${type}"/>`;

const data = (id: string, value: string | number) => `<data key="${id}">${escapeXml(String(value))}</data>`;

/** Node keys are `n_` and edge keys `e_` with the property's name; `label` is the one Gephi shows. */
export function graphMl(graph: Graph): string {
  const nodeFields: readonly ('kind' | 'label' | NodeField)[] = ['label', 'kind', ...NODE_FIELDS];
  const edgeFields: readonly ('label' | EdgeField)[] = ['label', ...EDGE_FIELDS];
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...nodeFields.map((f) => key(`n_${f}`, 'node', f, COUNT_FIELDS.has(f as NodeField) ? 'long' : 'string')),
    ...edgeFields.map((f) => key(`e_${f}`, 'edge', f, 'string')),
    '  <graph id="userscout" edgedefault="directed">',
  ];
  for (const node of graph.nodes) {
    const values: [string, string | number][] = [
      ['label', node.label],
      ['kind', node.kind],
      ...NODE_FIELDS.flatMap((f): [string, string | number][] =>
        node.fields[f] === undefined ? [] : [[f, node.fields[f]!]],
      ),
    ];
    lines.push(
      `    <node id="${escapeXml(node.id)}">${values.map(([f, v]) => data(`n_${f}`, v)).join('')}</node>`,
    );
  }
  for (const [i, edge] of graph.edges.entries()) {
    const values: [string, string][] = [
      ['label', edge.type],
      ...EDGE_FIELDS.flatMap((f): [string, string][] =>
        edge.fields[f] === undefined ? [] : [[f, edge.fields[f]!]],
      ),
    ];
    lines.push(
      `    <edge id="e${i}" source="${escapeXml(edge.source)}" target="${escapeXml(edge.target)}">${values.map(([f, v]) => data(`e_${f}`, v)).join('')}</edge>`,
    );
  }
  lines.push('  </graph>', '</graphml>', '');
  return lines.join('\n');
}
