import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { SearchThread } from '../../src/runner/search-thread.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';

// Every thread the tests start, so one can be crashed from inside (see the restart test).
const threads = vi.hoisted(() => [] as Worker[]);
vi.mock('node:worker_threads', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:worker_threads')>();
  class WatchedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args);
      threads.push(this);
    }
  }
  return { ...original, Worker: WatchedWorker };
});

const NAMES = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'];
const SLOW = new Set(['Delta', 'Echo', 'Foxtrot']);
// How long the slow platforms take to answer: long only in the tests that act while they are out.
let slowMs = 0;
const catalogue = catalogueOf(NAMES.map((name) => entry(name, { category: 'social' })));
const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
  accounts: (p) => (['Alpha', 'Echo'].includes(p.name) ? ['sam', ...p.known.claimed] : p.known.claimed),
  latency: (p) => (SLOW.has(p.name) ? slowMs : 0),
});
// The probes for a name, by host and path: a check's controls (random names) may still be out when its result is sent.
const asked = new Map<string, number>();
const sim = new SimWeb({
  routes: emulation.routes.map((route) => ({
    ...route,
    handle: (request) => {
      const key = `${request.host}${request.path}`;
      asked.set(key, (asked.get(key) ?? 0) + 1);
      return route.handle(request);
    },
  })),
});

beforeAll(async () => {
  await sim.start();
});
afterEach(() => {
  slowMs = 0;
  asked.clear();
});
afterAll(async () => {
  await sim.stop();
});

/** Slow enough that the fast platforms are stored long before, even on a loaded machine. */
const SLOW_MS = 4000;

function setup() {
  const dataDir = tempDir();
  const caFile = join(dataDir, 'ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig(
    { dataDir, connectTo: sim.connectTo, caFile, refusePrivate: false, timeoutMs: 5000 },
    {},
  );
  const databasePath = join(dataDir, 'userscout.db');
  const store = createStore({ kind: 'sqlite', path: databasePath });
  const events = new LocalEventHub();
  const threadErrors: unknown[] = [];
  const thread = new SearchThread(
    { config, catalogue, databasePath, thread: { index: 0, of: 1 } },
    { events, onThreadError: (error) => threadErrors.push(error) },
  );
  return { store, events, thread, threadErrors };
}

async function newSearch(store: ReturnType<typeof createStore>, id: string): Promise<SearchRecord> {
  const search: SearchRecord = {
    id,
    username: 'sam',
    state: 'queued',
    tier: 'free',
    client: 'ip:127.0.0.1',
    platformIds: catalogue.platforms.map((p) => p.id),
    estimatedSeconds: 2,
    createdAt: Date.now(),
  };
  await store.createSearch(search);
  return search;
}

describe('SearchThread', () => {
  it('runs a search on its own thread, storing outcomes and sending its events back', async () => {
    const { store, events, thread } = setup();
    try {
      await thread.start();
      const search = await newSearch(store, 'thread-1');
      const seen: SearchEvent[] = [];
      events.subscribe(search.id, (e) => seen.push(e));
      await thread.execute(search, new AbortController().signal);
      expect((await store.getSearch(search.id))?.state).toBe('completed');
      const outcomes = await store.listOutcomes(search.id);
      expect(outcomes.map((o) => o.outcome.platform).sort()).toEqual([...NAMES].sort());
      const hits = outcomes.filter((o) => o.outcome.status === 'hit').map((o) => o.outcome.platform);
      expect(hits.sort()).toEqual(['Alpha', 'Echo']);
      expect(seen.filter((e) => e.type === 'result')).toHaveLength(NAMES.length);
      expect(seen.at(-1)).toMatchObject({ type: 'done', state: 'completed' });
    } finally {
      await thread.close();
      await store.close();
    }
  });

  it('starts a new thread when it dies mid-search; the search resumes and checks nothing twice', async () => {
    const { store, events, thread, threadErrors } = setup();
    slowMs = SLOW_MS;
    try {
      await thread.start();
      const search = await newSearch(store, 'thread-2');
      let results = 0;
      events.subscribe(search.id, (e) => {
        if (e.type === 'result') results++;
      });
      const running = thread.execute(search, new AbortController().signal);
      const deadline = Date.now() + 5000;
      while (results < NAMES.length - SLOW.size && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(results).toBe(NAMES.length - SLOW.size);
      const askedForSam = (name: string) =>
        asked.get(`${new URL(catalogue.platforms.find((p) => p.name === name)!.home).host}/u/sam`) ?? 0;
      const fastBefore = NAMES.filter((n) => !SLOW.has(n)).map(askedForSam);
      expect(fastBefore).toEqual([1, 1, 1]);
      // The crash lands while the slow checks are out; asked again after it, they answer at once.
      slowMs = 0;
      // A real crash: the thread's own message handler throws on a message it cannot read.
      const crashed = threads.at(-1)!;
      const exited = new Promise<number>((resolve) => crashed.once('exit', resolve));
      crashed.postMessage({ type: 'run', search: null });
      expect(await exited).toBe(1);
      await running;
      expect(threads.at(-1)).not.toBe(crashed);
      expect(threadErrors[0]).toBeInstanceOf(TypeError);
      expect(threadErrors.at(-1)).toMatchObject({ message: 'search thread exited (1)' });
      expect((await store.getSearch(search.id))?.state).toBe('completed');
      const outcomes = await store.listOutcomes(search.id);
      expect(outcomes.map((o) => o.outcome.platform).sort()).toEqual([...NAMES].sort());
      // The fast platforms, stored before the crash, were not asked again.
      expect(NAMES.filter((n) => !SLOW.has(n)).map(askedForSam)).toEqual(fastBefore);
    } finally {
      await thread.close();
      await store.close();
    }
  });

  it('interrupts a running search when its signal aborts, leaving it resumable', async () => {
    const { store, thread } = setup();
    slowMs = SLOW_MS;
    try {
      await thread.start();
      const search = await newSearch(store, 'thread-3');
      const controller = new AbortController();
      const running = thread.execute(search, controller.signal);
      // Abort once the fast platforms are stored (bounded wait), while the slow ones are still out.
      for (let i = 0; i < 200; i++) {
        if ((await store.listOutcomes(search.id)).length >= NAMES.length - SLOW.size) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      controller.abort();
      await expect(running).rejects.toThrow(/interrupted/);
      const stored = await store.getSearch(search.id);
      expect(stored?.state).toBe('running');
      expect((await store.listOutcomes(search.id)).length).toBe(NAMES.length - SLOW.size);
    } finally {
      await thread.close();
      await store.close();
    }
  });

  it('never runs a search whose signal aborts while the thread is still starting', async () => {
    const { store, thread } = setup();
    try {
      const search = await newSearch(store, 'thread-4');
      const controller = new AbortController();
      const running = thread.execute(search, controller.signal);
      controller.abort();
      await expect(running).rejects.toThrow(/interrupted/);
      await thread.start();
      await new Promise((r) => setTimeout(r, 200));
      expect(await store.listOutcomes(search.id)).toEqual([]);
      expect((await store.getSearch(search.id))?.state).toBe('queued');
    } finally {
      await thread.close();
      await store.close();
    }
  });
});
