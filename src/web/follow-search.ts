/**
 * Follows one search until it ends: Server-Sent Events when the browser has
 * EventSource, else (or when the stream fails) polling once a second. Every
 * outcome is reported, possibly more than once (replays, polls); the page
 * merges them by platform id.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import type { ApiClient } from './api-client.js';
import { ApiError, type ApiFailure } from './api-failure.js';
import type { SearchSnapshot, SearchStatus } from './api-types.js';
import type { ProgressCounts } from './progress.js';

export type FollowMode = 'events' | 'polling';

export interface FollowHandlers {
  /** A full picture of the search (first, on every poll, and at the end). */
  snapshot(search: SearchSnapshot): void;
  result(outcome: Outcome): void;
  progress(progress: ProgressCounts): void;
  mode(mode: FollowMode): void;
  done(status: Exclude<SearchStatus, 'running'>, error?: string): void;
  /** Following stopped on this failure; call followSearch again to retry. */
  failed(failure: ApiFailure): void;
}

export interface FollowOptions {
  /** @default globalThis.EventSource (undefined: poll) */
  readonly EventSource?: typeof EventSource | undefined;
  /** @default 1000 */
  readonly pollMs?: number;
  /** Most polls before giving up, so a stuck search cannot poll forever. @default 21600 (6 h at 1/s) */
  readonly maxPolls?: number;
}

export interface Following {
  stop(): void;
}

function asFailure(error: unknown): ApiFailure {
  if (error instanceof ApiError) return error.failure;
  return { kind: 'network', message: error instanceof Error ? error.message : String(error) };
}

export function followSearch(
  client: ApiClient,
  id: string,
  on: FollowHandlers,
  options: FollowOptions = {},
): Following {
  const ES = 'EventSource' in options ? options.EventSource : globalThis.EventSource;
  const pollMs = options.pollMs ?? 1000;
  const maxPolls = options.maxPolls ?? 21_600;
  let stopped = false;
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    stopped = true;
    source?.close();
    source = undefined;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  const fail = (error: unknown) => {
    if (stopped) return;
    stop();
    on.failed(asFailure(error));
  };

  let ended = false;
  /**
   * Reports a snapshot; true when there is nothing more to follow: the search
   * has ended and, for a recursive one, its follow-ups are listed (they are
   * started just after it completes: `done` is reported at once, and the search
   * read again until they are).
   */
  const report = (search: SearchSnapshot): boolean => {
    on.snapshot(search);
    if (search.status === 'running') return false;
    const final = !search.followUpsPending;
    if (final) stop();
    if (!ended) {
      ended = true;
      on.done(search.status, search.error);
    }
    return final;
  };
  /** After a snapshot that was not the last: the stream for a running search, polls for pending follow-ups. */
  const goOn = (search: SearchSnapshot, follow: () => void) => {
    if (search.status === 'running') follow();
    else poll(maxPolls);
  };

  const poll = (remaining: number) => {
    if (stopped) return;
    if (remaining <= 0) {
      fail(
        new ApiError({ kind: 'network', message: 'The search is taking too long; reopen its link later' }),
      );
      return;
    }
    timer = setTimeout(() => {
      client.getSearch(id).then(
        (search) => {
          if (!stopped && !report(search)) poll(remaining - 1);
        },
        (error: unknown) => fail(error),
      );
    }, pollMs);
  };

  const startPolling = () => {
    source?.close();
    source = undefined;
    on.mode('polling');
    poll(maxPolls);
  };

  /** The id of the last result received, to resume from after a `reconnect`. */
  let lastEventId = '';
  const listen = (Source: typeof EventSource) => {
    on.mode('events');
    const url = client.eventsUrl(id);
    const es = new Source(
      lastEventId
        ? `${url}${url.includes('?') ? '&' : '?'}lastEventId=${encodeURIComponent(lastEventId)}`
        : url,
    );
    source = es;
    es.addEventListener('result', (event) => {
      const message = event as MessageEvent<string>;
      if (message.lastEventId) lastEventId = message.lastEventId;
      on.result(JSON.parse(message.data) as Outcome);
    });
    // The server is going away while the search goes on (it resumes after a restart):
    // not an end. Follow again after the pause it asks for, from the last result seen.
    es.addEventListener('reconnect', (event) => {
      es.close();
      source = undefined;
      const { retryMs } = JSON.parse((event as MessageEvent<string>).data) as { retryMs?: number };
      timer = setTimeout(
        () => {
          if (!stopped) listen(Source);
        },
        typeof retryMs === 'number' && retryMs >= 0 ? retryMs : pollMs,
      );
    });
    es.addEventListener('progress', (event) => {
      on.progress(JSON.parse((event as MessageEvent<string>).data) as ProgressCounts);
    });
    es.addEventListener('done', () => {
      es.close();
      source = undefined;
      // The stream's outcomes are all there; one last read gives the finishing time and status.
      client.getSearch(id).then(
        (search) => {
          if (!stopped && !report(search)) goOn(search, startPolling);
        },
        (error: unknown) => fail(error),
      );
    });
    // A broken stream (proxy, limit, server restart): polling is slower but sure.
    es.onerror = () => {
      if (!stopped && source === es) startPolling();
    };
  };

  client.getSearch(id).then(
    (search) => {
      if (stopped || report(search)) return;
      goOn(search, () => (ES ? listen(ES) : startPolling()));
    },
    (error: unknown) => fail(error),
  );

  return { stop };
}
