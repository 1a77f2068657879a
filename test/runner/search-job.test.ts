import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { OutcomeBatcher, runSearchJob } from '../../src/runner/search-job.js';
import { createStore } from '../../src/store/create-store.js';
import { OUTCOME_BATCH_MAX } from '../../src/tuning.js';
import { putCached } from '../support/cached.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { jobDeps, queuedSearch } from '../support/search-job.js';

describe('runSearchJob', () => {
  // The name breaks Digits' rule, so its check is decided without a request.
  const catalogue = catalogueOf([
    entry('Digits', {
      username: { pattern: '^[0-9]+$' },
      known: { claimed: ['12345'], unclaimed: ['99999999'] },
    }),
  ]);
  const engine = createEngine(loadConfig({}, {}), catalogue);
  afterAll(() => engine.close());

  it('passes a cached hit on as unknown/rule_drift once its platform has drifted', async () => {
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    const search = queuedSearch('00000000-0000-4000-8000-000000000002', '12345', ['digits']);
    await store.createSearch(search);
    const cachedHit: Outcome = {
      platform: 'Digits',
      platformId: 'digits',
      category: 'social',
      url: 'https://digits.test/u/12345',
      status: 'hit',
      responseTime: 10,
      evidence: { rule: 'exists: status 200', attempts: 1, httpStatus: 200, cachedAt: 1 },
    };
    await putCached(store, '12345', cachedHit, 10_000, 1);
    // Found by a later control: a name that cannot exist reads as a hit there now.
    await store.putControl({
      platformId: 'digits',
      identity: 'default',
      username: '4815162342',
      status: 'hit',
      rule: 'exists: status 200',
      drift: true,
      checkedAt: 2,
    });
    await runSearchJob(
      search,
      jobDeps(engine, store, catalogue.platforms, {
        cache: { hitSeconds: 60, missSeconds: 0, otherSeconds: 0 },
        now: () => 5,
      }),
      new AbortController().signal,
    );
    const [stored] = (await store.listOutcomes(search.id)).map((s) => s.outcome);
    expect(stored).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
    expect(stored!.evidence.control).toMatch(/^control "4815162342" read hit/);
    await store.close();
  });

  it('records no made-up outcome for a platform no longer in the catalogue', async () => {
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    const events = new LocalEventHub();
    const search = queuedSearch('00000000-0000-4000-8000-000000000001', 'alice', ['digits', 'removed-since']);
    await store.createSearch(search);
    const seen: SearchEvent[] = [];
    events.subscribe(search.id, (event) => seen.push(event));
    await runSearchJob(
      search,
      jobDeps(engine, store, catalogue.platforms, { events }),
      new AbortController().signal,
    );
    const stored = (await store.listOutcomes(search.id)).map((s) => s.outcome);
    expect(stored.map((o) => [o.platformId, o.category, o.status, o.reason])).toEqual([
      ['digits', 'social', 'invalid', 'username_rule'],
    ]);
    expect((await store.getSearch(search.id))?.state).toBe('completed');
    expect(seen.at(-1)).toEqual({
      type: 'done',
      state: 'completed',
      progress: { checked: 1, total: 2, hits: 0, answered: 0, unknown: 0, errors: 0, invalid: 1 },
    });
    await store.close();
  });
});

describe('runSearchJob: checks noted', () => {
  it('notes every check in the statistics and the cache, none lost, before the search is done', async () => {
    const count = OUTCOME_BATCH_MAX * 2 + 7;
    const ids = Array.from({ length: count }, (_, i) => `p${i}`);
    const catalogue = catalogueOf(ids.map((id) => entry(id)));
    const miss = (id: string): Outcome => ({
      platform: id,
      platformId: id,
      category: 'social',
      url: `https://${id}.test/u/alice`,
      status: 'miss',
      responseTime: 40,
      evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404 },
    });
    const engine = {
      async *search() {
        for (const id of ids) yield miss(id);
      },
    } as unknown as Engine;
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    const events = new LocalEventHub();
    const search = queuedSearch('00000000-0000-4000-8000-000000000003', 'alice', ids);
    await store.createSearch(search);
    let statsAtDone = -1;
    events.subscribe(search.id, (event) => {
      if (event.type === 'done') void store.platformStats().then((s) => (statsAtDone = s.length));
    });
    await runSearchJob(
      search,
      jobDeps(engine, store, catalogue.platforms, {
        events,
        cache: { hitSeconds: 0, missSeconds: 60, otherSeconds: 0 },
        now: () => 7,
      }),
      new AbortController().signal,
    );
    const stats = await store.platformStats();
    expect(stats.map((s) => [s.platformId, s.checks, s.lastCheckedAt]).sort()).toEqual(
      ids.map((id) => [id, 1, 7]).sort(),
    );
    expect(statsAtDone).toBe(count);
    for (const id of ids)
      expect((await store.getCachedOutcomes('alice', [id], 8)).get(id)).toEqual({
        ...miss(id),
        evidence: { ...miss(id).evidence, cachedAt: 7 },
      });
    await store.close();
  });
});

describe('runSearchJob: cached outcomes', () => {
  it('reads them in one store call for the whole search, and checks only the platforms without one', async () => {
    const ids = ['p0', 'p1', 'p2'];
    const catalogue = catalogueOf(ids.map((id) => entry(id)));
    const miss = (id: string): Outcome => ({
      platform: id,
      platformId: id,
      category: 'social',
      url: `https://${id}.test/u/alice`,
      status: 'miss',
      responseTime: 40,
      evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404, cachedAt: 3 },
    });
    const searched: string[][] = [];
    const engine = {
      async *search(_username: string, platforms: readonly { id: string }[]) {
        searched.push(platforms.map((p) => p.id));
        for (const p of platforms)
          yield { ...miss(p.id), evidence: { ...miss(p.id).evidence, cachedAt: undefined } };
      },
    } as unknown as Engine;
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    await putCached(store, 'alice', [miss('p0'), miss('p2')], 100, 3);
    const reads: string[] = [];
    const counting = new Proxy(store, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        if (key === 'getCachedOutcomes') reads.push(key);
        return value.bind(target);
      },
    });
    const search = queuedSearch('00000000-0000-4000-8000-000000000010', 'alice', ids);
    await store.createSearch(search);
    await runSearchJob(
      search,
      jobDeps(engine, counting, catalogue.platforms, {
        cache: { hitSeconds: 0, missSeconds: 0, otherSeconds: 0 },
        now: () => 7,
      }),
      new AbortController().signal,
    );
    expect(reads).toEqual(['getCachedOutcomes']);
    expect(searched).toEqual([['p1']]);
    const stored = (await store.listOutcomes(search.id)).map((s) => s.outcome);
    expect(
      stored
        .filter((o) => o.evidence.cachedAt === 3)
        .map((o) => o.platformId)
        .sort(),
    ).toEqual(['p0', 'p2']);
    await store.close();
  });
});

describe('runSearchJob: a failed statistic or cache write', () => {
  it('does not end the search, is reported, and costs only itself (the cache entry is still written)', async () => {
    const ids = ['p0', 'p1', 'p2'];
    const catalogue = catalogueOf(ids.map((id) => entry(id)));
    const engine = {
      async *search() {
        for (const id of ids)
          yield {
            platform: id,
            platformId: id,
            category: 'social',
            url: `https://${id}.test/u/alice`,
            status: 'miss',
            responseTime: 40,
            evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404 },
          } satisfies Outcome;
      },
    } as unknown as Engine;
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    let cacheWrites = 0;
    const failed: string[] = [];
    const refused: Partial<typeof store> = {
      putCachedOutcomes: async (username, entries) => {
        cacheWrites += entries.length;
        return store.putCachedOutcomes(username, entries);
      },
      recordChecks: async () => {
        throw new Error('statistics write refused');
      },
    };
    const failing = new Proxy(store, {
      get: (target, key) => {
        const own = refused[key as keyof typeof store];
        if (own) return own;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const search = queuedSearch('00000000-0000-4000-8000-000000000009', 'alice', ids);
    await store.createSearch(search);
    await runSearchJob(
      search,
      jobDeps(engine, failing, catalogue.platforms, {
        cache: { hitSeconds: 0, missSeconds: 60, otherSeconds: 0 },
        now: () => 7,
        onNoteFailed: (error, outcome) => failed.push(`${outcome.platformId}: ${(error as Error).message}`),
      }),
      new AbortController().signal,
    );
    expect((await store.getSearch(search.id))?.state).toBe('completed');
    // Each failure is reported, and a failed statistic does not cost the cache entry.
    expect(failed.sort()).toEqual(ids.map((id) => `${id}: statistics write refused`));
    expect(cacheWrites).toBe(ids.length);
    expect((await store.getCachedOutcomes('alice', ['p1'], 8)).get('p1')).toBeDefined();
    expect((await store.listOutcomes(search.id)).map((o) => o.outcome.platformId).sort()).toEqual(ids);
    await store.close();
  });
});

describe('OutcomeBatcher', () => {
  const outcome = (platformId: string, status: Outcome['status'] = 'miss'): Outcome => ({
    platform: platformId,
    platformId,
    category: 'social',
    url: `https://${platformId}.example/alice`,
    status,
    responseTime: 1,
    evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404 },
  });
  const unused = {
    replace: async () => expect.unreachable('nothing is replaced'),
    note: async () => {},
  };

  it('writes outcomes that arrive together in one batch, at most OUTCOME_BATCH_MAX, and reports each with its seq in order', async () => {
    const writes: string[][] = [];
    let next = 1;
    const stored: [string, number | undefined][] = [];
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => {
          writes.push(batch.map((o) => o.platformId));
          // The first platform is stored already: no seq.
          return batch.map((o) => (o.platformId === 'p0' ? undefined : next++));
        },
      },
      { stored: (o, seq) => stored.push([o.platformId, seq]), replaced: () => {} },
    );
    const count = OUTCOME_BATCH_MAX * 2 + 2;
    for (let i = 0; i < count; i++) batcher.add(outcome(`p${i}`));
    await batcher.drain();
    expect(writes.map((w) => w.length)).toEqual([OUTCOME_BATCH_MAX, OUTCOME_BATCH_MAX, 2]);
    expect(writes.flat()).toEqual(Array.from({ length: count }, (_, i) => `p${i}`));
    expect(stored).toEqual(Array.from({ length: count }, (_, i) => [`p${i}`, i === 0 ? undefined : i]));
  });

  it('counts outcomes and checks noted apart toward OUTCOME_BATCH_MAX: an outcome with its check is not two', async () => {
    const writes: number[] = [];
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => {
          writes.push(batch.length);
          return batch.map(() => 1);
        },
      },
      { stored: () => {}, replaced: () => {} },
    );
    for (let i = 0; i < OUTCOME_BATCH_MAX * 2; i++) {
      batcher.note({ outcome: outcome(`p${i}`), at: 1 });
      batcher.add(outcome(`p${i}`));
    }
    await batcher.drain();
    // The search job notes a check before it adds its outcome: the 64th check fills the batch.
    expect(writes[0]).toBe(OUTCOME_BATCH_MAX - 1);
    expect(Math.max(...writes)).toBe(OUTCOME_BATCH_MAX);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(OUTCOME_BATCH_MAX * 2);
  });

  it('writes what arrives later in its own batch, after the earlier one', async () => {
    const writes: string[][] = [];
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => {
          writes.push(batch.map((o) => o.platformId));
          return batch.map(() => 1);
        },
      },
      { stored: () => {}, replaced: () => {} },
    );
    batcher.add(outcome('a'));
    await batcher.drain();
    batcher.add(outcome('b'));
    batcher.add(outcome('c'));
    await batcher.drain();
    expect(writes).toEqual([['a'], ['b', 'c']]);
  });

  it('notes checks with the batch they came with, none lost, and a batch of checks alone too', async () => {
    const log: string[] = [];
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => {
          log.push(`add ${batch.map((o) => o.platformId).join(',')}`);
          return batch.map(() => 1);
        },
        note: async (checks) => {
          log.push(`note ${checks.map((c) => `${c.outcome.platformId}@${c.at}`).join(',')}`);
        },
      },
      { stored: () => {}, replaced: () => {} },
    );
    batcher.note({ outcome: outcome('a'), at: 1 });
    batcher.add(outcome('a'));
    batcher.note({ outcome: outcome('b'), at: 2 });
    await batcher.drain();
    // The check of a platform whose outcome is not stored yet (checked once more) is noted alone.
    batcher.note({ outcome: outcome('c'), at: 3 });
    await batcher.drain();
    for (let i = 0; i < OUTCOME_BATCH_MAX; i++) batcher.note({ outcome: outcome(`n${i}`), at: 4 });
    await Promise.resolve();
    // A full batch of checks is written without waiting for the flush timer.
    expect(log.at(-1)).toMatch(/^note n0@4,/);
    await batcher.drain();
    expect(log.slice(0, 3)).toEqual(['add a', 'note a@1,b@2', 'note c@3']);
    expect(log).toHaveLength(4);
  });

  it('replaces after every outcome added before, and reports it in order with its seq', async () => {
    const log: string[] = [];
    let next = 1;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = new OutcomeBatcher(
      {
        add: async (batch) => {
          await held;
          return batch.map(() => next++);
        },
        replace: async (o) => {
          log.push(`replace ${o.platformId}`);
          return next++;
        },
        note: async () => {},
      },
      {
        stored: (o, seq) => log.push(`stored ${o.platformId} ${seq}`),
        replaced: (first, again, seq) => log.push(`replaced ${first.status}->${again.status} ${seq}`),
      },
    );
    batcher.add(outcome('b', 'error'));
    batcher.add(outcome('a', 'hit'));
    batcher.replace(outcome('b', 'error'), outcome('b', 'hit'));
    batcher.add(outcome('c'));
    expect(batcher.busy).toBe(true);
    release();
    await batcher.drain();
    expect(batcher.busy).toBe(false);
    expect(log).toEqual(['stored b 1', 'stored a 2', 'replace b', 'replaced error->hit 3', 'stored c 4']);
  });

  it('throws a failed write from drain and from the next add, and writes nothing after it', async () => {
    const writes: string[][] = [];
    const failure = new Error('store down');
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => {
          writes.push(batch.map((o) => o.platformId));
          throw failure;
        },
      },
      { stored: () => expect.unreachable('nothing was stored'), replaced: () => {} },
    );
    batcher.add(outcome('a'));
    await expect(batcher.drain()).rejects.toBe(failure);
    expect(() => batcher.add(outcome('b'))).toThrow(failure);
    expect(() => batcher.replace(outcome('a'), outcome('a', 'hit'))).toThrow(failure);
    await expect(batcher.drain()).rejects.toBe(failure);
    expect(writes).toEqual([['a']]);
  });

  it('throws a failed note from drain, after reporting the outcomes stored with it', async () => {
    const failure = new Error('stats down');
    const stored: string[] = [];
    const batcher = new OutcomeBatcher(
      {
        ...unused,
        add: async (batch) => batch.map(() => 1),
        note: async () => {
          throw failure;
        },
      },
      { stored: (o) => stored.push(o.platformId), replaced: () => {} },
    );
    batcher.add(outcome('a'));
    batcher.note({ outcome: outcome('a'), at: 1 });
    await expect(batcher.drain()).rejects.toBe(failure);
    expect(stored).toEqual(['a']);
  });
});
