/**
 * The Redis store's vocabulary (see compact-outcome.ts): texts a platform
 * repeats, kept once in Redis and cached in this process. `PREFIX:vocab` maps
 * id → text, `PREFIX:vocab-ids` text → id; neither expires (they grow with
 * the catalogue, not with searches). Field 0 of `vocab` is its generation, a
 * random token set when the vocabulary is first written: a Redis emptied and
 * refilled gives other ids, so every write that refers to ids checks the
 * generation the ids came from, and every read compares it with its own.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Outcome } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { decodeOutcome, encodeOutcome, vocabularyIdsIn, vocabularyOf } from './compact-outcome.js';
import { VocabularyCache } from './vocabulary-cache.js';

const INTERN_SCRIPT = {
  // KEYS: vocab, vocab-ids. ARGV: a new generation (used if there is none), texts...
  // Returns the generation, then each text's id.
  numberOfKeys: 2,
  lua: `
    local generation = redis.call('HGET', KEYS[1], '0')
    if not generation then
      generation = ARGV[1]
      redis.call('HSET', KEYS[1], '0', generation)
    end
    local result = {generation}
    for i = 2, #ARGV do
      local id = redis.call('HGET', KEYS[2], ARGV[i])
      if not id then
        id = redis.call('HLEN', KEYS[1])
        redis.call('HSET', KEYS[1], id, ARGV[i])
        redis.call('HSET', KEYS[2], ARGV[i], id)
      end
      result[#result + 1] = tonumber(id)
    end
    return result`,
} as const;

/** What a write script answers when the generation it was given is not Redis's: encode again. */
export const STALE_VOCABULARY = -2;

/** Lua that returns STALE_VOCABULARY unless field 0 of KEYS[vocabKey] is ARGV[generationArg]. */
export function checkGeneration(vocabKey: number, generationArg: number): string {
  return `if redis.call('HGET', KEYS[${vocabKey}], '0') ~= ARGV[${generationArg}] then return ${STALE_VOCABULARY} end`;
}

/** Outcomes encoded with one generation's ids (see RedisVocabulary.encode). */
export interface EncodedOutcomes {
  readonly generation: string;
  readonly rows: readonly Buffer[];
  /** Each outcome's platform id in the vocabulary. */
  readonly platforms: readonly number[];
}

type Interning = Redis & { usIntern(...args: string[]): Promise<(string | number)[]> };

export class RedisVocabulary {
  readonly #cache = new VocabularyCache();
  #generation: string | undefined;

  constructor(
    readonly redis: Redis,
    readonly vocabKey: string,
    readonly idsKey: string,
  ) {
    if (!('usIntern' in redis)) redis.defineCommand('usIntern', INTERN_SCRIPT);
  }

  /** The generation the cached ids belong to ('' before any is known). */
  get generation(): string {
    return this.#generation ?? '';
  }

  /** Forgets every id when Redis's generation is not the one cached (it was emptied since). */
  observe(generation: string | null): void {
    if (generation !== null && generation !== this.#generation) {
      this.#cache.clear();
      this.#generation = generation;
    }
  }

  /**
   * Forgets the ids of `stale`, the generation a write was refused for: the next write
   * interns again. Ids of a newer generation, learnt meanwhile by a concurrent write,
   * are kept (forgetting them would pull ids from under that write's interning).
   */
  reset(stale: string): void {
    if (stale !== this.generation) return;
    this.#cache.clear();
    this.#generation = undefined;
  }

  /** Gives every text an id (one round trip for those not cached; two when Redis was emptied since). */
  async intern(texts: Iterable<string>): Promise<void> {
    const wanted = [...new Set(texts)];
    for (let round = 0; round < 2; round++) {
      const missing = wanted.filter((t) => this.#cache.idOf(t) === undefined);
      if (missing.length === 0 && this.#generation !== undefined) return;
      const [generation, ...ids] = await (this.redis as Interning).usIntern(
        this.vocabKey,
        this.idsKey,
        randomUUID(),
        ...missing,
      );
      // Another generation: the ids cached are forgotten, and those asked for again.
      this.observe(String(generation));
      for (const [i, text] of missing.entries()) this.#cache.remember(text, Number(ids[i]));
    }
    if (wanted.some((t) => this.#cache.idOf(t) === undefined))
      throw new UserscoutError('internal', 'The vocabulary changed generation twice in a row');
  }

  /** The id of a text interned already. */
  idOf(text: string): number | undefined {
    return this.#cache.idOf(text);
  }

  /**
   * Interns what the outcomes need and encodes them, for the search of `username`, with
   * the generation their ids belong to and each outcome's platform id, read in the same
   * turn (a concurrent read or write may change the generation between turns). An id
   * forgotten meanwhile gives the generation '' that every write script refuses: encode again.
   */
  async encode(outcomes: readonly Outcome[], username: string): Promise<EncodedOutcomes> {
    await this.intern(outcomes.flatMap((o) => vocabularyOf(o, username)));
    const platforms = outcomes.map((o) => this.#cache.idOf(o.platformId));
    return {
      generation: platforms.includes(undefined) ? '' : this.generation,
      rows: outcomes.map((o) => Buffer.from(encodeOutcome(o, username, (text) => this.#cache.idOf(text)))),
      platforms: platforms.map((id) => id ?? -1),
    };
  }

  /** Decodes outcomes read from Redis, fetching the texts not cached (one round trip). */
  async decode(rows: readonly Uint8Array[], username: string): Promise<Outcome[]> {
    await this.#load(rows.flatMap((row) => vocabularyIdsIn(row)));
    return rows.map((row) => decodeOutcome(row, username, (id) => this.#cache.textOf(id)!));
  }

  /** The texts of these ids, fetching those not cached (one round trip). */
  async textsOf(ids: readonly number[]): Promise<string[]> {
    await this.#load(ids);
    return ids.map((id) => this.#cache.textOf(id)!);
  }

  async #load(ids: readonly number[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => this.#cache.textOf(id) === undefined);
    if (missing.length === 0) return;
    const texts = await this.redis.hmget(this.vocabKey, ...missing.map(String));
    for (const [i, id] of missing.entries()) {
      const text = texts[i];
      if (text === null || text === undefined)
        throw new UserscoutError('internal', `The store's vocabulary has no entry ${id}`);
      this.#cache.remember(text, id);
    }
  }
}
