import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Outcome } from '../../src/engine/outcome.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { OUTCOME_BATCH_MAX, OutcomeBatcher, runSearchJob } from '../../src/runner/search-job.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';

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
    const search: SearchRecord = {
      id: '00000000-0000-4000-8000-000000000002',
      username: '12345',
      state: 'queued',
      tier: 'free',
      client: 'ip:127.0.0.1',
      platformIds: ['digits'],
      estimatedSeconds: 1,
      createdAt: 0,
    };
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
    await store.putCachedOutcome('12345', cachedHit, 10_000);
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
      {
        engine,
        store,
        events: new LocalEventHub(),
        platformsById: new Map(catalogue.platforms.map((p) => [p.id, p])),
        cache: { hitSeconds: 60, missSeconds: 0, otherSeconds: 0 },
        unmeasuredLatencyMs: 1000,
        now: () => 5,
      },
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
    const search: SearchRecord = {
      id: '00000000-0000-4000-8000-000000000001',
      username: 'alice',
      state: 'queued',
      tier: 'free',
      client: 'ip:127.0.0.1',
      platformIds: ['digits', 'removed-since'],
      estimatedSeconds: 1,
      createdAt: 0,
    };
    await store.createSearch(search);
    const seen: SearchEvent[] = [];
    events.subscribe(search.id, (event) => seen.push(event));
    await runSearchJob(
      search,
      {
        engine,
        store,
        events,
        platformsById: new Map(catalogue.platforms.map((p) => [p.id, p])),
        cache: { hitSeconds: 0, missSeconds: 0, otherSeconds: 0 },
        unmeasuredLatencyMs: 1000,
        now: () => 1,
      },
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

describe('OutcomeBatcher', () => {
  const outcome = (platformId: string): Outcome => ({
    platform: platformId,
    platformId,
    category: 'social',
    url: `https://${platformId}.example/alice`,
    status: 'miss',
    responseTime: 1,
    evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404 },
  });

  it('writes outcomes that arrive together in one batch, at most OUTCOME_BATCH_MAX, and reports each with its seq in order', async () => {
    const writes: string[][] = [];
    let next = 1;
    const stored: [string, number | undefined][] = [];
    const batcher = new OutcomeBatcher(
      async (batch) => {
        writes.push(batch.map((o) => o.platformId));
        // The first platform is stored already: no seq.
        return batch.map((o) => (o.platformId === 'p0' ? undefined : next++));
      },
      (o, seq) => stored.push([o.platformId, seq]),
    );
    const count = OUTCOME_BATCH_MAX * 2 + 2;
    for (let i = 0; i < count; i++) batcher.add(outcome(`p${i}`));
    await batcher.drain();
    expect(writes.map((w) => w.length)).toEqual([OUTCOME_BATCH_MAX, OUTCOME_BATCH_MAX, 2]);
    expect(writes.flat()).toEqual(Array.from({ length: count }, (_, i) => `p${i}`));
    expect(stored).toEqual(Array.from({ length: count }, (_, i) => [`p${i}`, i === 0 ? undefined : i]));
  });

  it('writes what arrives later in its own batch, after the earlier one', async () => {
    const writes: string[][] = [];
    const batcher = new OutcomeBatcher(
      async (batch) => {
        writes.push(batch.map((o) => o.platformId));
        return batch.map(() => 1);
      },
      () => {},
    );
    batcher.add(outcome('a'));
    await batcher.drain();
    batcher.add(outcome('b'));
    batcher.add(outcome('c'));
    await batcher.drain();
    expect(writes).toEqual([['a'], ['b', 'c']]);
  });

  it('throws a failed write from drain and from the next add, and writes nothing after it', async () => {
    const writes: string[][] = [];
    const failure = new Error('store down');
    const batcher = new OutcomeBatcher(
      async (batch) => {
        writes.push(batch.map((o) => o.platformId));
        throw failure;
      },
      () => expect.unreachable('nothing was stored'),
    );
    batcher.add(outcome('a'));
    await expect(batcher.drain()).rejects.toBe(failure);
    expect(() => batcher.add(outcome('b'))).toThrow(failure);
    await expect(batcher.drain()).rejects.toBe(failure);
    expect(writes).toEqual([['a']]);
  });
});
