import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { runSearchJob } from '../../src/runner/search-job.js';
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
