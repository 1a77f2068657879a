/**
 * What a revoked key started ends with it. A key is revoked in the store (by
 * `userscout keys revoke`, another process), so each API process reads the keys
 * every USERSCOUT_REVOCATION_CHECK_MS; for a key newly revoked, its open event
 * streams are closed, and its unfinished searches end with status `error` ("key
 * revoked"): queued ones leave the queue, running ones are interrupted.
 */
import { failSearch } from '../runner/search-job.js';
import type { AppDeps } from './deps.js';

/** The error a search of a revoked key ends with. */
export const KEY_REVOKED = 'key revoked';

export class KeyRevocations {
  readonly #deps: Pick<AppDeps, 'store' | 'runner' | 'events' | 'now'>;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  /** Open event streams by client (`key:ID`): how to close each. */
  readonly #streams = new Map<string, Set<() => void>>();
  /** Revoked keys whose work has been ended. */
  readonly #handled = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(
    deps: Pick<AppDeps, 'store' | 'runner' | 'events' | 'now'>,
    intervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.#deps = deps;
    this.#intervalMs = intervalMs;
    this.#onError = onError;
  }

  /** `close` is called when `client`'s key is revoked; the answer stops watching. Keyless clients are not watched. */
  watch(client: string, close: () => void): () => void {
    if (!client.startsWith('key:')) return () => {};
    const closers = this.#streams.get(client) ?? new Set<() => void>();
    this.#streams.set(client, closers);
    closers.add(close);
    return () => {
      closers.delete(close);
      if (closers.size === 0 && this.#streams.get(client) === closers) this.#streams.delete(client);
    };
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.check(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look at the keys; ends the work of those newly revoked. A look already under way is not doubled. */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      const { store, runner } = this.#deps;
      const revoked = (await store.listApiKeys())
        .filter((k) => k.revokedAt !== undefined && !this.#handled.has(k.id))
        .map((k) => k.id);
      if (revoked.length === 0) return;
      const clients = new Set(revoked.map((id) => `key:${id}`));
      for (const client of clients) for (const close of [...(this.#streams.get(client) ?? [])]) close();
      for (const search of await store.unfinishedSearches()) {
        if (!clients.has(search.client)) continue;
        // Ended first, so that no runner starts or completes it afterwards; then its work stops.
        await failSearch(search.id, KEY_REVOKED, this.#deps);
        await runner.cancel(search.id);
      }
      for (const id of revoked) this.#handled.add(id);
    } catch (error) {
      // The next look tries again: a key is marked handled only once all its work has ended.
      this.#onError(error);
    } finally {
      this.#checking = false;
    }
  }
}
