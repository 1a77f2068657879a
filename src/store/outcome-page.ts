/**
 * How the PostgreSQL store kept a batch of outcomes before compact pages
 * (compact-page.ts; pages of this format still read, and tests write them to
 * prove it), and a search's platforms by name: one page, exactly the
 * outcomes added (every field, and the order of their keys, so the API's JSON
 * is byte for byte what it was), laid out by column and brotli-compressed.
 * Most outcomes of a search are misses that differ in little but the
 * platform: by column, alike values sit together and compress to almost
 * nothing, and a whole search merged into one page compresses best. A
 * `finalUrl` equal to the outcome's `url` is kept as a marker. Pure;
 * compression runs on libuv's thread pool, off the event loop.
 *
 * Body: one format byte (1: brotli of the JSON `Columns` below), then the data.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import type { Outcome } from '../engine/verdict/outcome.js';
import { decodeVarints, encodeVarints } from './compact-outcome.js';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

const FORMAT_COLUMNS_BROTLI = 1;

/**
 * Brotli quality. A page written per batch is small and written often; a whole
 * search merged once is worth more effort (about 80 ms of one pool thread for
 * a 991-platform search, for a tenth fewer bytes than quality 7).
 */
const PAGE_QUALITY = { batch: 5, merged: 10 } as const;

/** The marker for `evidence.finalUrl` equal to `url` (a real finalUrl is a string, or is kept boxed). */
const SAME_AS_URL = 1;

interface Columns {
  /** Distinct key orders: [outcome keys, evidence keys, or null when evidence is not an object]. */
  readonly shapes: [string[], string[] | null][];
  /** Each outcome's shape, by index. */
  readonly s: number[];
  /** Values of each outcome key, in outcome order, only for outcomes that have the key. */
  readonly top: Record<string, unknown[]>;
  /** The same for evidence keys. */
  readonly ev: Record<string, unknown[]>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function definedKeys(object: Json): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}

function columnOf(columns: Record<string, unknown[]>, key: string): unknown[] {
  let column = columns[key];
  if (!column) {
    column = [];
    columns[key] = column;
  }
  return column;
}

/** The outcomes as columns: pure, exact. */
export function toColumns(outcomes: readonly Outcome[]): Columns {
  const shapes: Columns['shapes'] = [];
  const shapeIndex = new Map<string, number>();
  const columns: Columns = { shapes, s: [], top: {}, ev: {} };
  for (const outcome of outcomes as unknown as readonly Json[]) {
    const evidence = outcome.evidence;
    // As JSON would: a key whose value is undefined is not there.
    const shape: [string[], string[] | null] = [
      definedKeys(outcome),
      isObject(evidence) ? definedKeys(evidence) : null,
    ];
    const signature = JSON.stringify(shape);
    let index = shapeIndex.get(signature);
    if (index === undefined) {
      index = shapes.push(shape) - 1;
      shapeIndex.set(signature, index);
    }
    columns.s.push(index);
    for (const key of shape[0]) {
      if (key === 'evidence' && shape[1]) continue;
      columnOf(columns.top, key).push(outcome[key]);
    }
    if (!shape[1] || !isObject(evidence)) continue;
    for (const key of shape[1]) {
      let value = evidence[key];
      if (key === 'finalUrl')
        value =
          value === outcome.url && typeof value === 'string'
            ? SAME_AS_URL
            : typeof value === 'string'
              ? value
              : [value];
      columnOf(columns.ev, key).push(value);
    }
  }
  return columns;
}

/** The outcomes back from their columns, keys in their first order. */
export function fromColumns(columns: Columns): Outcome[] {
  const cursor = new Map<unknown[], number>();
  const next = (column: unknown[] | undefined): unknown => {
    if (!column) throw new Error('outcome page: a column is missing');
    const at = cursor.get(column) ?? 0;
    cursor.set(column, at + 1);
    return column[at];
  };
  return columns.s.map((index) => {
    const [keys, evidenceKeys] = columns.shapes[index]!;
    const outcome: Json = {};
    for (const key of keys) {
      if (key === 'evidence' && evidenceKeys) {
        outcome.evidence = {};
        continue;
      }
      outcome[key] = next(columns.top[key]);
    }
    if (evidenceKeys) {
      const evidence = outcome.evidence as Json;
      for (const key of evidenceKeys) {
        let value = next(columns.ev[key]);
        if (key === 'finalUrl')
          value = value === SAME_AS_URL ? outcome.url : Array.isArray(value) ? value[0] : value;
        evidence[key] = value;
      }
    }
    return outcome as unknown as Outcome;
  });
}

/** A search's platform ids (a thousand of them, about 13 KB as JSON) in about 5.7 KB. */
export async function encodeIds(ids: readonly string[]): Promise<Buffer> {
  return compress(Buffer.from(JSON.stringify(ids)), {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 5,
    },
  });
}

/** Vocabulary ids (a search's platforms) as brotli of their varints: a thousand in about 1.3 KB. */
export async function encodeVocabularyIds(ids: readonly number[]): Promise<Buffer> {
  return compress(encodeVarints(ids), { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
}

export async function decodeVocabularyIds(body: Uint8Array): Promise<number[]> {
  return decodeVarints(await decompress(body));
}

export async function decodeIds(body: Uint8Array): Promise<string[]> {
  return JSON.parse((await decompress(body)).toString('utf8')) as string[];
}

export async function encodePage(outcomes: readonly Outcome[], merged = false): Promise<Buffer> {
  const json = Buffer.from(JSON.stringify(toColumns(outcomes)));
  const data = await compress(json, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: merged ? PAGE_QUALITY.merged : PAGE_QUALITY.batch,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return Buffer.concat([Buffer.of(FORMAT_COLUMNS_BROTLI), data]);
}

export async function decodePage(body: Uint8Array): Promise<Outcome[]> {
  if (body[0] !== FORMAT_COLUMNS_BROTLI) throw new Error(`outcome page: unknown format ${body[0]}`);
  const json = await decompress(body.subarray(1));
  return fromColumns(JSON.parse(json.toString('utf8')) as Columns);
}
