/**
 * How the PostgreSQL store keeps a batch of outcomes: one page, the JSON array
 * of the outcomes exactly as added, deflate-compressed. Most outcomes of a
 * search are misses that differ in little but the platform, so a page of many
 * compresses well (a whole search merged into one page most of all). Pure;
 * compression runs on libuv's thread pool, off the event loop.
 */
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { Outcome } from '../engine/outcome.js';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

export async function encodePage(outcomes: readonly Outcome[]): Promise<Buffer> {
  return deflate(Buffer.from(JSON.stringify(outcomes)), { level: 6 });
}

export async function decodePage(body: Uint8Array): Promise<Outcome[]> {
  return JSON.parse((await inflate(body)).toString('utf8')) as Outcome[];
}
