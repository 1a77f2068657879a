/**
 * How many event streams are open, per client (address or key) and per search,
 * in this process; and the 429 past the caps. A stream holds its place from the
 * moment it is admitted until it closes, whatever closes it.
 */
import type { Config } from '../config.js';
import { UserscoutError } from '../errors.js';
import type { Tier } from '../store/store.js';

export type StreamLimitConfig = Pick<Config, 'streamLimit' | 'proStreamLimit' | 'searchStreamLimit'>;

export class StreamLimits {
  readonly #config: StreamLimitConfig;
  readonly #byClient = new Map<string, number>();
  readonly #bySearch = new Map<string, number>();

  constructor(config: StreamLimitConfig) {
    this.#config = config;
  }

  /**
   * Admits one stream of `client` on `searchId`: returns the function that gives
   * its place back (once; later calls do nothing), or throws `too_many_streams`.
   */
  admit(client: string, tier: Tier, searchId: string): () => void {
    const clientMax = tier === 'professional' ? this.#config.proStreamLimit : this.#config.streamLimit;
    const searchMax = this.#config.searchStreamLimit;
    if ((this.#byClient.get(client) ?? 0) >= clientMax) {
      throw new UserscoutError(
        'too_many_streams',
        `Too many open event streams: at most ${clientMax} per ${tier === 'professional' ? 'API key' : 'client address'}. Close one, or poll GET /api/search?id= instead.`,
        { details: { limit: clientMax, scope: 'client' } },
      );
    }
    if ((this.#bySearch.get(searchId) ?? 0) >= searchMax) {
      throw new UserscoutError(
        'too_many_streams',
        `Too many open event streams on this search: at most ${searchMax}. Poll GET /api/search?id= instead.`,
        { details: { limit: searchMax, scope: 'search' } },
      );
    }
    add(this.#byClient, client, 1);
    add(this.#bySearch, searchId, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      add(this.#byClient, client, -1);
      add(this.#bySearch, searchId, -1);
    };
  }

  /** Streams open for this client, or on this search (for tests and metrics). */
  openFor(client: string): number {
    return this.#byClient.get(client) ?? 0;
  }

  openOn(searchId: string): number {
    return this.#bySearch.get(searchId) ?? 0;
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
