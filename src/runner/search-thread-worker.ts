/**
 * The search thread (see search-thread.ts): its own engine and SQLite
 * connection, running the searches the main thread sends, and sending back
 * their live events (those published together in one message: one per batch
 * of outcomes stored, not one per outcome).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { catalogueFromClone } from '../catalogue/thread-copy.js';
import { createEngine } from '../engine/create-engine.js';
import { BrowserDirectory } from '../engine/transport/browser-directory.js';
import { TransportTally } from '../engine/transport/transport-tally.js';
import { createStore } from '../store/create-store.js';
import type { EventHub, SearchEvent } from './events.js';
import { OutcomeTally } from './outcome-tally.js';
import { runSearchJob, SearchCancelledError, searchJobDeps } from './search-job.js';
import type { FromThread, SearchThreadData, ToThread } from './search-thread.js';
import { scheduleSelfCheck } from './self-check-schedule.js';
import { SharedRateBudget } from './shared-rate-budget.js';

function threadPort(): NonNullable<typeof parentPort> {
  if (!parentPort) throw new Error('search-thread-worker runs as a worker thread only');
  return parentPort;
}
const port = threadPort();
const { config, databasePath, budget, tally, outcomes, browsers, thread } = workerData as SearchThreadData;
// A structured clone arrives unfrozen, its regexes not compiled: rebuilt as the loader leaves it.
const catalogue = catalogueFromClone((workerData as SearchThreadData).catalogue);
/** Live events not posted yet: those published together (a batch of outcomes) go as one message. */
let unsent: { readonly id: string; readonly event: SearchEvent }[] = [];
const postEvents = () => {
  if (unsent.length === 0) return;
  port.postMessage({ type: 'events', events: unsent } satisfies FromThread);
  unsent = [];
};
// Events first: a search's `done` never overtakes its last results.
const send = (message: FromThread) => {
  postEvents();
  port.postMessage(message);
};

const store = createStore({ kind: 'sqlite', path: databasePath });
// Control records in the database: shared with the API (the platform list) and kept across restarts.
// Budgets in memory shared with the other search threads, if any: together they keep each one.
const engine = createEngine(config, catalogue, {
  controls: store,
  // Learned site limits in the database: shared with the other search threads and kept across restarts.
  siteLimits: store.siteLimits,
  // So are the transports sites were found to need.
  transportMemory: store.transportMemory,
  ...(budget ? { rateBudget: new SharedRateBudget(budget, thread) } : {}),
  // The process's count of browser contexts, which caps them over every search thread.
  ...(tally ? { tally: new TransportTally(tally) } : {}),
  // The process's browsers, launched by whichever thread needs one first and used by all.
  ...(browsers ? { browserDirectory: new BrowserDirectory(browsers) } : {}),
});
const events: EventHub = {
  publish: (id, event) => {
    if (unsent.push({ id, event }) === 1) queueMicrotask(postEvents);
  },
  subscribe: () => () => {},
  close: async () => {},
};
// The scheduled self-check runs here, where an engine is: on one thread of them.
const selfCheck =
  thread.index === 0
    ? scheduleSelfCheck(config, { platforms: catalogue.platforms, engine, store })
    : undefined;
const deps = searchJobDeps(config, {
  engine,
  store,
  events,
  catalogue,
  now: Date.now,
  // The process's count of outcomes, which /metrics reads: each counted here before it is stored.
  ...(outcomes ? { tally: new OutcomeTally(outcomes) } : {}),
  onNoteFailed: (error, outcome) =>
    send({
      type: 'warning',
      message: error instanceof Error ? error.message : String(error),
      platformId: outcome.platformId,
    }),
});
const running = new Map<string, { controller: AbortController; done: Promise<void> }>();

async function close(): Promise<void> {
  for (const { controller } of running.values()) controller.abort(new Error('service stopping'));
  await Promise.allSettled([...running.values()].map((r) => r.done));
  await selfCheck?.stop();
  await engine.close();
  await store.close();
  send({ type: 'closed' });
  port.close();
}

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'run': {
      const { search } = message;
      if (running.has(search.id)) return;
      const controller = new AbortController();
      const done = runSearchJob(search, deps, controller.signal).then(
        () => send({ type: 'done', id: search.id }),
        (error: unknown) =>
          send({
            type: 'failed',
            id: search.id,
            cancelled: error instanceof SearchCancelledError,
            message: error instanceof Error ? error.message : String(error),
          }),
      );
      running.set(search.id, { controller, done: done.finally(() => running.delete(search.id)) });
      return;
    }
    case 'cancel':
      running.get(message.id)?.controller.abort(new Error('search cancelled'));
      return;
    case 'close':
      void close();
      return;
  }
});

send({ type: 'ready' });
