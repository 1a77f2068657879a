/**
 * A graph (graph.ts) as two CSV files, the shape Neo4j's `LOAD CSV WITH HEADERS`
 * reads: nodes (`id`, `kind`, `label`, then the properties) and edges
 * (`source` and `target` node ids, `relationship`, then the properties). Cells
 * are written by the outcome CSV's own writer (quoting, and the apostrophe before
 * what a spreadsheet would run as a formula); node ids never need that apostrophe,
 * as each starts with its kind (`name:`, `account:`, `url:`). Pure.
 */

import { EDGE_FIELDS, type Graph, NODE_FIELDS } from './graph.js';
import { csvCell } from './outcome-csv.js';

export const NODE_COLUMNS = ['id', 'kind', 'label', ...NODE_FIELDS] as const;
/** `relationship`, not `type`: Gephi's spreadsheet import reads a `type` column as directed or not. */
export const EDGE_COLUMNS = ['source', 'target', 'relationship', ...EDGE_FIELDS] as const;

const CRLF = '\r\n';

const lines = (rows: readonly (readonly (string | number | undefined)[])[]) =>
  rows.map((cells) => cells.map(csvCell).join(',') + CRLF).join('');

/** One line per node after the header; every line ends with CRLF. */
export function graphNodesCsv(graph: Graph): string {
  return lines([
    NODE_COLUMNS,
    ...graph.nodes.map((n) => [n.id, n.kind, n.label, ...NODE_FIELDS.map((f) => n.fields[f])]),
  ]);
}

/** One line per edge after the header; every line ends with CRLF. */
export function graphEdgesCsv(graph: Graph): string {
  return lines([
    EDGE_COLUMNS,
    ...graph.edges.map((e) => [e.source, e.target, e.type, ...EDGE_FIELDS.map((f) => e.fields[f])]),
  ]);
}
