/**
 * Where the MCP server's searches run: this machine's engine, or a userscout
 * service through the typed client. Both answer a search in the API's own
 * shape (GET /api/search?id=), so a tool reads hits, misses, unknowns and
 * errors the same way whichever runs it.
 */
import type { SearchJson } from '../api/search-response.js';
import type { Category } from '../catalogue/categories.js';

export interface SearchFilters {
  /** Only these categories (all when absent). */
  readonly categories?: readonly Category[];
  /** Only these platform ids or names. */
  readonly platforms?: readonly string[];
  /** Only platforms with one of these tags. */
  readonly tags?: readonly string[];
  /** Only the curated set of the platforms most searched on. */
  readonly top?: boolean;
  /** Include NSFW platforms. @default false */
  readonly includeNsfw?: boolean;
}

export interface StartedSearch {
  readonly queryId: string;
  readonly totalPlatforms: number;
}

export interface ReadOptions {
  /** Every outcome, not only hits. */
  readonly all: boolean;
  /** Wait up to this long (ms) for a running search to end before answering. */
  readonly waitMs: number;
}

/** A platform as the tools list it: whether it is searched, and why not when it is not. */
export interface PlatformEntry {
  readonly name: string;
  readonly id: string;
  readonly category: Category;
  readonly nsfw: boolean;
  readonly enabled: boolean;
  readonly disabledReason?: string;
}

/** A platform's entry from what the catalogue or the service says of it: one shape for both backends. */
export function platformEntry(p: {
  readonly name: string;
  readonly id: string;
  readonly category: Category;
  readonly nsfw: boolean;
  readonly enabled: boolean;
  readonly disabledReason?: string | undefined;
}): PlatformEntry {
  return {
    name: p.name,
    id: p.id,
    category: p.category,
    nsfw: p.nsfw,
    enabled: p.enabled,
    ...(!p.enabled && p.disabledReason ? { disabledReason: p.disabledReason } : {}),
  };
}

export interface SearchBackend {
  /** Where the searches run, for the tools to say: "this machine" or the service's address. */
  readonly where: string;
  /** Starts a search and answers at once. Throws a UserscoutError (bad name, no platform, full, unreachable). */
  start(username: string, filters: SearchFilters): Promise<StartedSearch>;
  /** The search as it stands; undefined when none has this id here. */
  read(queryId: string, options: ReadOptions): Promise<SearchJson | undefined>;
  /** The platforms, of one category when given, in catalogue order. */
  platforms(category?: Category): Promise<PlatformEntry[]>;
  /** Stops running searches and releases the network. */
  close(): Promise<void>;
}
