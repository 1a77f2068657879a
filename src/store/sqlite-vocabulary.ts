/**
 * The SQLite store's vocabulary (see compact-outcome.ts): the texts a platform
 * repeats, in the `vocabulary` table, cached in this process.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { decodeOutcome, encodeOutcome, vocabularyOf } from './compact-outcome.js';
import type { Database, Statement } from './sqlite-driver.js';
import { VocabularyCache } from './vocabulary-cache.js';

/**
 * The `vocabulary` table, cached: an id, once given, never changes, so this
 * process keeps every one it has seen. Interning writes, so it runs inside the
 * write transaction that stores what refers to it; `forgetUncommitted` drops
 * the ids of a transaction rolled back, which another process may give again.
 */
export class Vocabulary {
  readonly #cache = new VocabularyCache();
  #uncommitted: string[] = [];
  readonly #insert: Statement;
  readonly #find: Statement;
  readonly #text: Statement;

  constructor(db: Database) {
    this.#insert = db.prepare('INSERT INTO vocabulary (text) VALUES (?) ON CONFLICT (text) DO NOTHING');
    this.#find = db.prepare('SELECT id FROM vocabulary WHERE text = ?');
    this.#text = db.prepare('SELECT text FROM vocabulary WHERE id = ?');
  }

  /** The id of `text`, added when new. Only inside a write transaction. */
  intern(text: string): number {
    const known = this.find(text);
    if (known !== undefined) return known;
    this.#insert.run(text);
    this.#uncommitted.push(text);
    return this.#cache.remember(text, (this.#find.get(text) as { id: number }).id);
  }

  /** The id of `text`, or undefined when it has none. */
  find(text: string): number | undefined {
    const cached = this.#cache.idOf(text);
    if (cached !== undefined) return cached;
    const row = this.#find.get(text) as { id: number } | undefined;
    return row && this.#cache.remember(text, row.id);
  }

  text(id: number): string {
    const cached = this.#cache.textOf(id);
    if (cached !== undefined) return cached;
    const row = this.#text.get(id) as { text: string } | undefined;
    if (!row) throw new UserscoutError('internal', `The store's vocabulary has no entry ${id}`);
    this.#cache.remember(row.text, id);
    return row.text;
  }

  /** `outcome` compact, its repeated texts interned. Only inside a write transaction. */
  encode(outcome: Outcome, username: string): Uint8Array {
    for (const text of vocabularyOf(outcome, username)) this.intern(text);
    return encodeOutcome(outcome, username, (text) => this.#cache.idOf(text));
  }

  decode(bytes: Uint8Array, username: string): Outcome {
    return decodeOutcome(bytes, username, (id) => this.text(id));
  }

  committed(): void {
    this.#uncommitted = [];
  }

  forgetUncommitted(): void {
    for (const text of this.#uncommitted) this.#cache.forget(text);
    this.#uncommitted = [];
  }
}
