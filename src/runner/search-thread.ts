/**
 * Runs searches on a worker thread of their own, so the checks (TLS
 * handshakes, reading and classifying bodies) never hold up the event loop
 * that answers HTTP. The thread has its own engine and its own connection to
 * the same SQLite database; live events come back as messages and are
 * published here. If the thread dies, it is started again and the searches it
 * was running resume from their stored outcomes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { builtIsFresh, PROJECT_ROOT } from '../build-freshness.js';
import type { Catalogue } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import type { SearchRecord } from '../store/store.js';
import {
  SEARCH_THREAD_CLOSE_GRACE_MS,
  SEARCH_THREAD_MAX_RESTARTS,
  SEARCH_THREAD_RESTART_WINDOW_MS,
} from '../tuning.js';
import type { EventHub, SearchEvent } from './events.js';
import type { SearchExecutor } from './in-process.js';
import { SearchCancelledError } from './search-job.js';
import type { Affinity } from './shared-rate-budget.js';

/** What the thread is started with (structured-cloned). */
export interface SearchThreadData {
  readonly config: Config;
  readonly catalogue: Catalogue;
  readonly databasePath: string;
  /** The request budgets shared by the search threads (shared-rate-budget.ts); without, the thread is alone and its engine keeps its own. */
  readonly budget?: SharedArrayBuffer;
  /** The process's transport tally (transport-tally.ts): its browser contexts' cap and what /metrics reads. */
  readonly tally?: SharedArrayBuffer;
  /** The process's outcome tally (outcome-tally.ts): the thread's searches count their outcomes in it, /metrics reads it. */
  readonly outcomes?: SharedArrayBuffer;
  /** The browsers the search threads share (browser-directory.ts); without, the thread's engine launches its own. */
  readonly browsers?: SharedArrayBuffer;
  /** This thread among the search threads: it runs the scheduled self-check when first, and prefers its own identities. */
  readonly thread: Affinity;
}

export type ToThread =
  | { readonly type: 'run'; readonly search: SearchRecord }
  | { readonly type: 'cancel'; readonly id: string }
  | { readonly type: 'close' };

export type FromThread =
  | { readonly type: 'ready' }
  | {
      readonly type: 'events';
      readonly events: readonly { readonly id: string; readonly event: SearchEvent }[];
    }
  | { readonly type: 'done'; readonly id: string }
  | { readonly type: 'failed'; readonly id: string; readonly cancelled: boolean; readonly message: string }
  | { readonly type: 'warning'; readonly message: string; readonly platformId: string }
  | { readonly type: 'closed' };

export interface SearchThreadHooks {
  readonly events: EventHub;
  /** The thread failed (it is restarted while it does not fail too often). */
  readonly onThreadError?: (error: unknown) => void;
  /** A statistic or cache write the thread could not make (its search went on). */
  readonly onNoteFailed?: (message: string, platformId: string) => void;
}

interface Pending {
  readonly search: SearchRecord;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * tsx's ESM API, found from this file (not from the directory the service was started
 * in), by its package's own exports map.
 */
function tsxEsmApi(): string {
  const packageJson = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    exports: { './esm/api': { import: { default: string } } };
  };
  return pathToFileURL(join(dirname(packageJson), exports['./esm/api'].import.default)).href;
}

/** The compiled thread module a service run from source may start instead (build-freshness.ts). */
const COMPILED_WORKER = join(PROJECT_ROOT, 'dist', 'runner', 'search-thread-worker.js');

/**
 * Whether this process starts the compiled thread module, decided at its first thread: every
 * thread it starts, and restarts, then runs the same code as the others (they share memory
 * layouts and messages), and the sources are walked once.
 */
let compiledWorker: boolean | undefined;

/**
 * Starts the thread's module: the compiled .js next to this file, or, when the
 * service runs from source (tests, `npm run dev`), the compiled one when the build
 * is fresh, else the .ts through tsx.
 */
function startThread(data: SearchThreadData): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  // The young generation is the thread's own: the HTTP thread keeps V8's default (config.ts).
  const options = {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: data.config.searchThreadYoungGenerationMb },
  };
  if (!fromSource) return new Worker(new URL('./search-thread-worker.js', import.meta.url), options);
  compiledWorker ??= builtIsFresh(COMPILED_WORKER);
  if (compiledWorker) return new Worker(pathToFileURL(COMPILED_WORKER), options);
  const url = new URL('./search-thread-worker.ts', import.meta.url);
  const tsx = tsxEsmApi();
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

export class SearchThread {
  readonly #data: SearchThreadData;
  readonly #hooks: SearchThreadHooks;
  readonly #pending = new Map<string, Pending>();
  readonly #restarts: number[] = [];
  #worker: Worker | undefined;
  #ready: Promise<void> | undefined;
  #closing = false;

  constructor(data: SearchThreadData, hooks: SearchThreadHooks) {
    this.#data = data;
    this.#hooks = hooks;
  }

  /** Searches sent to this thread and not settled yet. */
  get load(): number {
    return this.#pending.size;
  }

  /** Starts the thread and waits until its engine and store are open. */
  start(): Promise<void> {
    this.#ready ??= this.#spawn();
    return this.#ready;
  }

  readonly execute: SearchExecutor = (search, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(new SearchCancelledError('search interrupted; it will resume'));
        return;
      }
      this.#pending.set(search.id, { search, resolve, reject });
      let sent = false;
      signal.addEventListener(
        'abort',
        () => {
          // Not sent yet (the thread is still starting): it never runs.
          if (sent) this.#post({ type: 'cancel', id: search.id });
          else this.#settle(search.id, new SearchCancelledError('search interrupted; it will resume'));
        },
        { once: true },
      );
      void this.start().then(
        () => {
          if (!this.#pending.has(search.id)) return;
          sent = true;
          this.#post({ type: 'run', search });
        },
        (error: unknown) =>
          this.#settle(search.id, error instanceof Error ? error : new Error(String(error))),
      );
    });

  /** Interrupts what runs (it stays resumable), closes the thread's engine and store, ends the thread. */
  async close(): Promise<void> {
    this.#closing = true;
    const worker = this.#worker;
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const closed = new Promise<void>((resolve) => {
      worker.on('message', (m: FromThread) => {
        if (m.type === 'closed') resolve();
      });
    });
    this.#post({ type: 'close' });
    const timer = setTimeout(() => void worker.terminate(), SEARCH_THREAD_CLOSE_GRACE_MS);
    await Promise.race([closed, ended]);
    clearTimeout(timer);
    await worker.terminate();
    for (const id of [...this.#pending.keys()])
      this.#settle(id, new SearchCancelledError('search interrupted; it will resume'));
  }

  #post(message: ToThread): void {
    this.#worker?.postMessage(message);
  }

  #spawn(): Promise<void> {
    const worker = startThread(this.#data);
    this.#worker = worker;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: FromThread) => {
        if (message.type === 'ready') {
          ready = true;
          resolve();
        } else this.#receive(message);
      });
      worker.on('error', (error) => {
        this.#hooks.onThreadError?.(error);
        if (!ready) reject(error);
      });
      worker.on('exit', (code) => {
        if (this.#worker !== worker) return;
        this.#worker = undefined;
        if (!ready) reject(new Error(`search thread exited (${code}) before it was ready`));
        else if (!this.#closing) this.#restart(code);
      });
    });
  }

  #receive(message: FromThread): void {
    switch (message.type) {
      case 'events':
        for (const { id, event } of message.events) this.#hooks.events.publish(id, event);
        return;
      case 'done':
        this.#settle(message.id);
        return;
      case 'warning':
        this.#hooks.onNoteFailed?.(message.message, message.platformId);
        return;
      case 'failed':
        this.#settle(
          message.id,
          message.cancelled ? new SearchCancelledError(message.message) : new Error(message.message),
        );
        return;
      default:
        return;
    }
  }

  /** The thread died: start another, and run again what it was running (it resumes from the store). */
  #restart(code: number): void {
    this.#hooks.onThreadError?.(new Error(`search thread exited (${code})`));
    const now = Date.now();
    while (this.#restarts.length > 0 && this.#restarts[0]! < now - SEARCH_THREAD_RESTART_WINDOW_MS)
      this.#restarts.shift();
    if (this.#restarts.length >= SEARCH_THREAD_MAX_RESTARTS) {
      this.#ready = undefined;
      for (const id of [...this.#pending.keys()])
        this.#settle(id, new Error('the search thread keeps failing; see the service log'));
      return;
    }
    this.#restarts.push(now);
    this.#ready = this.#spawn();
    this.#ready.then(
      () => {
        for (const { search } of this.#pending.values()) this.#post({ type: 'run', search });
      },
      (error: unknown) => {
        for (const id of [...this.#pending.keys()])
          this.#settle(id, error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  #settle(id: string, error?: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (error) pending.reject(error);
    else pending.resolve();
  }
}
