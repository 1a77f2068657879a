/**
 * Graph files read back as a graph tool would: GraphML through a real XML
 * parser (htmlparser2 in XML mode), CSV through an RFC 4180 reader.
 */
import { Parser } from 'htmlparser2';

export interface ReadGraphMl {
  /** key id → its attr.name, for, attr.type. */
  readonly keys: Map<string, { name: string; for: string; type: string }>;
  readonly nodes: { id: string; data: Record<string, string> }[];
  readonly edges: { id: string; source: string; target: string; data: Record<string, string> }[];
  readonly directed: boolean;
}

/** Every key, node and edge of a GraphML document, each node's and edge's data by the key's attr.name. */
export function readGraphMl(xml: string): ReadGraphMl {
  const keys = new Map<string, { name: string; for: string; type: string }>();
  const nodes: ReadGraphMl['nodes'] = [];
  const edges: ReadGraphMl['edges'] = [];
  let directed = false;
  let owner: { data: Record<string, string> } | undefined;
  let dataKey: string | undefined;
  let text = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'key')
          keys.set(attrs.id!, { name: attrs['attr.name']!, for: attrs.for!, type: attrs['attr.type']! });
        if (name === 'graph') directed = attrs.edgedefault === 'directed';
        if (name === 'node') {
          const node = { id: attrs.id!, data: {} };
          nodes.push(node);
          owner = node;
        }
        if (name === 'edge') {
          const edge = { id: attrs.id!, source: attrs.source!, target: attrs.target!, data: {} };
          edges.push(edge);
          owner = edge;
        }
        if (name === 'data') {
          dataKey = attrs.key;
          text = '';
        }
      },
      ontext(chunk) {
        if (dataKey !== undefined) text += chunk;
      },
      onclosetag(name) {
        if (name === 'data' && owner && dataKey !== undefined) {
          owner.data[keys.get(dataKey)?.name ?? `?${dataKey}`] = text;
          dataKey = undefined;
        }
      },
      onerror(error) {
        throw error;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return { keys, nodes, edges, directed };
}

/** The records of an RFC 4180 CSV text (quoted cells may hold commas, quotes and line breaks). */
export function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else if (c === '\r' || c === '\n') throw new Error(`a bare line break outside quotes at ${i}`);
    else cell += c;
  }
  if (quoted) throw new Error('the text ends inside a quoted cell');
  if (cell !== '' || row.length) throw new Error('the last record does not end with CRLF');
  return rows;
}

/** CSV records as objects by the header's names. */
export function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = readCsv(text);
  return rows.map((cells) => {
    if (cells.length !== header!.length)
      throw new Error(`a record of ${cells.length} cells under ${header!.length} columns`);
    return Object.fromEntries(header!.map((h, i) => [h, cells[i]!]));
  });
}
