/**
 * One search's live events, encoded once and handed to every event stream that
 * follows it. Serialising per stream cost one JSON.stringify per stream per
 * event (1,000 streams on one search: a million per thousand results), which
 * stalled every other request; now each event becomes Server-Sent-Event bytes
 * once, and every stream writes the same Buffer.
 */
import type { EventHub, SearchEvent } from '../runner/events.js';
import { SSE_RECONNECT_AFTER_MS } from '../tuning.js';

/** One Server-Sent Event, as text. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The frames a live event becomes on the wire. Pure. */
export function encodeSearchEvent(event: SearchEvent): Buffer {
  switch (event.type) {
    case 'result':
      return Buffer.from(
        sseFrame('result', event.outcome, event.seq) + sseFrame('progress', event.progress),
        'utf8',
      );
    case 'started':
      return Buffer.from(sseFrame('progress', event.progress), 'utf8');
    case 'done':
      return Buffer.from(
        sseFrame('progress', event.progress) +
          sseFrame('done', { status: event.state, ...(event.error ? { error: event.error } : {}) }),
        'utf8',
      );
  }
}

/**
 * The last event of a stream the server closes while the search goes on (shutdown,
 * restart): the client reconnects (with Last-Event-ID) and the stream resumes.
 */
export const RECONNECT_FRAME = Buffer.from(
  sseFrame('reconnect', { reason: 'shutdown', retryMs: SSE_RECONNECT_AFTER_MS }),
  'utf8',
);

/** One live event and its bytes. */
export interface EncodedEvent {
  readonly event: SearchEvent;
  readonly bytes: Buffer;
}

/** The events of one flush, in order, and their bytes joined: what most streams write. */
export interface EventBatch {
  readonly items: readonly EncodedEvent[];
  readonly bytes: Buffer;
  /** Lowest and highest result seq in the batch (Infinity and 0 when it has no result). */
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The batch ends with the search's `done`. */
  readonly done: boolean;
}

export function eventBatch(items: readonly EncodedEvent[]): EventBatch {
  let firstSeq = Number.POSITIVE_INFINITY;
  let lastSeq = 0;
  for (const { event } of items) {
    if (event.type !== 'result') continue;
    firstSeq = Math.min(firstSeq, event.seq);
    lastSeq = Math.max(lastSeq, event.seq);
  }
  return {
    items,
    bytes: items.length === 1 ? items[0]!.bytes : Buffer.concat(items.map((i) => i.bytes)),
    firstSeq,
    lastSeq,
    done: items.some((i) => i.event.type === 'done'),
  };
}

export type BatchSink = (batch: EventBatch) => void;

interface Followed {
  readonly sinks: Set<BatchSink>;
  readonly unsubscribe: () => void;
  pending: EncodedEvent[];
  timer: NodeJS.Timeout | undefined;
}

export class EventFanout {
  readonly #hub: EventHub;
  readonly #flushMs: number;
  readonly #followed = new Map<string, Followed>();

  /**
   * `flushMs`: events of a search arriving within this long go out together, as
   * one write per stream: a thousand streams and a hundred results a second
   * would otherwise be a hundred thousand socket writes a second.
   */
  constructor(hub: EventHub, flushMs: number) {
    this.#hub = hub;
    this.#flushMs = flushMs;
  }

  /** Follows one search: `sink` gets its events in batches. Returns the function that stops. */
  subscribe(searchId: string, sink: BatchSink): () => void {
    const followed = this.#followed.get(searchId) ?? this.#follow(searchId);
    followed.sinks.add(sink);
    return () => {
      if (!followed.sinks.delete(sink) || followed.sinks.size > 0) return;
      if (this.#followed.get(searchId) === followed) this.#followed.delete(searchId);
      if (followed.timer) clearTimeout(followed.timer);
      followed.unsubscribe();
    };
  }

  #follow(searchId: string): Followed {
    const followed: Followed = {
      sinks: new Set(),
      pending: [],
      timer: undefined,
      unsubscribe: this.#hub.subscribe(searchId, (event) => {
        followed.pending.push({ event, bytes: encodeSearchEvent(event) });
        followed.timer ??= setTimeout(() => this.#flush(followed), this.#flushMs);
      }),
    };
    this.#followed.set(searchId, followed);
    return followed;
  }

  #flush(followed: Followed): void {
    followed.timer = undefined;
    const batch = eventBatch(followed.pending.splice(0));
    if (batch.items.length === 0) return;
    // A sink may leave while this runs: a Set visits what is still in it.
    for (const sink of followed.sinks) sink(batch);
  }

  /** Whether any stream follows this search. */
  following(searchId: string): boolean {
    return this.#followed.has(searchId);
  }

  /** Resolves once the hub's subscription to this search is in effect. */
  async subscribed(searchId: string): Promise<void> {
    await this.#hub.subscribed?.(searchId);
  }
}
