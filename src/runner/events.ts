/**
 * Live events of searches, for Server-Sent Events and progress, and the
 * progress snapshot they carry. One interface; in one process an EventEmitter
 * carries them, in cluster mode Redis pub/sub.
 */
import { EventEmitter } from 'node:events';
import type { Outcome } from '../engine/verdict/outcome.js';
import type { SearchProgress } from '../store/store.js';

export interface ProgressSnapshot {
  readonly checked: number;
  readonly total: number;
  readonly hits: number;
  /** hit + miss: the platforms that told. */
  readonly answered: number;
  readonly unknown: number;
  readonly errors: number;
  /** The username breaks the platform's rule: no request was sent. */
  readonly invalid: number;
}

/** How far a search got: the one shape of progress in events, polls and the CLI's JSON. */
export function progressSnapshot(
  /** Platforms the search covers. */
  total: number,
  counts: Pick<SearchProgress, 'checked' | 'byStatus'>,
): ProgressSnapshot {
  const s = counts.byStatus;
  return {
    checked: counts.checked,
    total,
    hits: s.hit,
    answered: s.hit + s.miss,
    unknown: s.unknown,
    errors: s.error,
    invalid: s.invalid,
  };
}

export type SearchEvent =
  | { readonly type: 'started'; readonly progress: ProgressSnapshot }
  | {
      readonly type: 'result';
      readonly seq: number;
      readonly outcome: Outcome;
      readonly progress: ProgressSnapshot;
    }
  | {
      readonly type: 'done';
      readonly state: 'completed' | 'error';
      readonly error?: string;
      readonly progress: ProgressSnapshot;
    };

export type SearchEventListener = (event: SearchEvent) => void;

export interface EventHub {
  publish(searchId: string, event: SearchEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(searchId: string, listener: SearchEventListener): () => void;
  /**
   * Resolves once the subscriptions to this search are in effect, so that no
   * event published from then on is missed. Absent when subscribing is immediate.
   */
  subscribed?(searchId: string): Promise<void>;
  close(): Promise<void>;
}

export class LocalEventHub implements EventHub {
  readonly #emitter = new EventEmitter();

  constructor() {
    // Many SSE clients may watch one search.
    this.#emitter.setMaxListeners(0);
  }

  publish(searchId: string, event: SearchEvent): void {
    this.#emitter.emit(searchId, event);
  }

  subscribe(searchId: string, listener: SearchEventListener): () => void {
    this.#emitter.on(searchId, listener);
    return () => this.#emitter.off(searchId, listener);
  }

  async close(): Promise<void> {
    this.#emitter.removeAllListeners();
  }
}
