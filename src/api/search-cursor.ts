/**
 * The opaque cursor of GET /api/searches: where a page ended (the last
 * search's creation time and id), as URL-safe text. Pure.
 */
import { UserscoutError } from '../errors.js';
import type { SearchCursor } from '../store/store.js';

export function encodeCursor(cursor: SearchCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.id}`, 'utf8').toString('base64url');
}

/** Throws 400 bad_request for a cursor this service did not give. */
export function decodeCursor(text: string): SearchCursor {
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = /^(\d{1,15})\.([\w-]{1,100})$/.exec(decoded);
  if (!match) throw new UserscoutError('bad_request', 'querystring.cursor is not a cursor this service gave');
  return { createdAt: Number(match[1]), id: match[2]! };
}
