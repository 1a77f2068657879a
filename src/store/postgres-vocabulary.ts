/**
 * The PostgreSQL store's vocabulary (see compact-outcome.ts): texts a platform
 * repeats, in the `vocabulary` table, cached in this process. Texts are
 * interned in statements of their own, committed before the outcomes that
 * refer to them are written, so an id, once seen, is never taken back. Texts
 * are kept as UTF-8 bytes: templates hold U+0000, which a text column refuses.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { decodeOutcome, encodeOutcome, vocabularyIdsIn, vocabularyOf } from './compact-outcome.js';
import { VocabularyCache } from './vocabulary-cache.js';

/** What the vocabulary needs of the store: one statement at a time, outside any transaction. */
export type Query = <R extends Record<string, unknown>>(
  sql: string,
  params: unknown[],
) => Promise<{ rows: R[] }>;

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export class PostgresVocabulary {
  readonly #cache = new VocabularyCache();

  constructor(readonly query: Query) {}

  /** Gives every text an id: those not cached are looked up, the new ones inserted (two or three statements). */
  async intern(texts: Iterable<string>): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => this.#cache.idOf(t) === undefined);
    if (missing.length === 0) return;
    await this.#find(missing);
    const fresh = missing.filter((t) => this.#cache.idOf(t) === undefined);
    if (fresh.length === 0) return;
    // Inserted only when absent (a conflict would still take a number of the sequence); another
    // process inserting the same text meanwhile makes ours a no-op, and the lookup after finds its id.
    // Always in one order (by bytes): two statements inserting the same new texts in other orders
    // would each wait for a row the other holds, and PostgreSQL would end one as a deadlock.
    const { rows } = await this.query<{ id: number; text: Buffer }>(
      `INSERT INTO vocabulary (text) SELECT unnest($1::bytea[]) ON CONFLICT (text) DO NOTHING RETURNING id, text`,
      [fresh.map(utf8).sort(Buffer.compare)],
    );
    this.#rememberRows(rows);
    const raced = fresh.filter((t) => this.#cache.idOf(t) === undefined);
    if (raced.length > 0) await this.#find(raced);
    if (raced.some((t) => this.#cache.idOf(t) === undefined))
      throw new UserscoutError('internal', 'The vocabulary lost a text it was given');
  }

  async #find(texts: readonly string[]): Promise<void> {
    const { rows } = await this.query<{ id: number; text: Buffer }>(
      'SELECT id, text FROM vocabulary WHERE text = ANY($1::bytea[])',
      [texts.map(utf8)],
    );
    this.#rememberRows(rows);
  }

  /** The id of a text interned already. */
  idOf(text: string): number | undefined {
    return this.#cache.idOf(text);
  }

  /** Interns what the outcomes need and encodes them, for the search of `username`. */
  async encode(outcomes: readonly Outcome[], username: string): Promise<Uint8Array[]> {
    await this.intern(outcomes.flatMap((o) => [o.platformId, ...vocabularyOf(o, username)]));
    return outcomes.map((o) => encodeOutcome(o, username, (text) => this.#cache.idOf(text)));
  }

  /**
   * Decodes compact outcomes, fetching the texts not cached (one statement, through `query`
   * when given: a transaction's connection, which sees every id committed).
   */
  async decode(
    encoded: readonly Uint8Array[],
    username: string,
    query: Query = this.query,
  ): Promise<Outcome[]> {
    await this.load(
      encoded.flatMap((bytes) => vocabularyIdsIn(bytes)),
      query,
    );
    return encoded.map((bytes) => decodeOutcome(bytes, username, (id) => this.#text(id)));
  }

  /** The texts of these ids, fetching those not cached (one statement). */
  async load(ids: readonly number[], query: Query = this.query): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => this.#cache.textOf(id) === undefined);
    if (missing.length === 0) return;
    const { rows } = await query<{ id: number; text: Buffer }>(
      'SELECT id, text FROM vocabulary WHERE id = ANY($1::int[])',
      [missing],
    );
    this.#rememberRows(rows);
  }

  #rememberRows(rows: readonly { id: number; text: Buffer }[]): void {
    for (const row of rows) this.#cache.remember(row.text.toString('utf8'), row.id);
  }

  /** The texts of these ids (one statement for those not cached). */
  async textsOf(ids: readonly number[]): Promise<string[]> {
    await this.load(ids);
    return ids.map((id) => this.#text(id));
  }

  #text(id: number): string {
    const text = this.#cache.textOf(id);
    if (text === undefined) throw new UserscoutError('internal', `The store's vocabulary has no entry ${id}`);
    return text;
  }
}
