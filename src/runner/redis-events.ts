/**
 * Live search events across processes: workers publish on a Redis channel per
 * search, and each API process subscribes (one subscriber connection) only
 * to the searches its SSE clients watch. Messages lost during a Redis outage
 * are not replayed here: SSE clients reconnect with Last-Event-ID and get the
 * stored outcomes they missed.
 *
 * Events published for one search before the microtasks queued with them run
 * (the synchronous write of a batch of stored outcomes, search-job.ts) go out
 * as one message: a JSON array, or the event alone when it is the only one.
 * Each channel's events keep their order.
 */
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { closeRedis } from '../redis/connection.js';
import { withDeadline } from '../redis/unavailable.js';
import type { EventHub, SearchEvent, SearchEventListener } from './events.js';

export interface RedisEventHubOptions {
  /** A command connection, used to publish. */
  readonly publisher: Redis;
  /** A connection of its own: it enters subscriber mode. Closed with the hub. */
  readonly subscriber: Redis;
  /** Key prefix, without the trailing colon. */
  readonly prefix: string;
  /** Longest wait for a subscription to take effect. @default 3000 */
  readonly subscribeTimeoutMs?: number;
  readonly onError?: (error: unknown) => void;
}

export class RedisEventHub implements EventHub {
  readonly #options: RedisEventHubOptions;
  readonly #emitter = new EventEmitter();
  /** Channel → events published since the last microtask checkpoint, not sent yet. */
  readonly #outgoing = new Map<string, SearchEvent[]>();
  /** Channel → the SUBSCRIBE in flight or done. */
  readonly #subscriptions = new Map<string, Promise<unknown>>();

  constructor(options: RedisEventHubOptions) {
    this.#options = options;
    this.#emitter.setMaxListeners(0);
    options.subscriber.on('message', (channel: string, message: string) => {
      let events: SearchEvent | SearchEvent[];
      try {
        events = JSON.parse(message) as SearchEvent | SearchEvent[];
      } catch (error) {
        options.onError?.(error);
        return;
      }
      for (const event of Array.isArray(events) ? events : [events]) this.#emitter.emit(channel, event);
    });
  }

  #channel(searchId: string): string {
    return `${this.#options.prefix}:events:${searchId}`;
  }

  publish(searchId: string, event: SearchEvent): void {
    const channel = this.#channel(searchId);
    const waiting = this.#outgoing.get(channel);
    if (waiting) {
      waiting.push(event);
      return;
    }
    this.#outgoing.set(channel, [event]);
    queueMicrotask(() => {
      const events = this.#outgoing.get(channel)!;
      this.#outgoing.delete(channel);
      this.#options.publisher
        .publish(channel, JSON.stringify(events.length === 1 ? events[0] : events))
        .catch((error: unknown) => this.#options.onError?.(error));
    });
  }

  subscribe(searchId: string, listener: SearchEventListener): () => void {
    const channel = this.#channel(searchId);
    this.#emitter.on(channel, listener);
    if (!this.#subscriptions.has(channel)) {
      const subscribing = this.#options.subscriber.subscribe(channel);
      subscribing.catch((error: unknown) => {
        this.#subscriptions.delete(channel);
        this.#options.onError?.(error);
      });
      this.#subscriptions.set(channel, subscribing);
    }
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#emitter.off(channel, listener);
      if (this.#emitter.listenerCount(channel) === 0 && this.#subscriptions.delete(channel)) {
        this.#options.subscriber.unsubscribe(channel).catch(() => {});
      }
    };
  }

  async subscribed(searchId: string): Promise<void> {
    const subscribing = this.#subscriptions.get(this.#channel(searchId));
    if (subscribing) await withDeadline(subscribing, this.#options.subscribeTimeoutMs ?? 3_000);
  }

  async close(): Promise<void> {
    this.#emitter.removeAllListeners();
    this.#subscriptions.clear();
    await closeRedis(this.#options.subscriber);
  }
}
