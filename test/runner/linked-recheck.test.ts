/**
 * A platform that had not answered is checked once more when a hit's profile
 * already links to its profile of the searched name, and the later answer is
 * the one stored; one nothing links to keeps its first outcome, checked once.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { ProfileUrlMatcher } from '../../src/engine/linked-accounts.js';
import type { Outcome } from '../../src/engine/outcome.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { linkedPlatforms } from '../../src/runner/linked-recheck.js';
import { runSearchJob } from '../../src/runner/search-job.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const catalogue = catalogueOf([entry('Alpha'), entry('Bravo'), entry('Charlie'), entry('Delta')]);
const byId = new Map(catalogue.platforms.map((p) => [p.id, p]));

function outcome(platformId: string, status: Outcome['status'], links?: string[]): Outcome {
  return {
    platform: platformId,
    platformId,
    category: 'social',
    url: `https://${platformId}.test/u/alice`,
    status,
    ...(status === 'error' ? { reason: 'timeout' as const } : {}),
    responseTime: 1,
    evidence: { rule: status, attempts: 1 },
    ...(links ? { profile: { links } } : {}),
  };
}

describe('linkedPlatforms', () => {
  const matcher = new ProfileUrlMatcher(catalogue.platforms);

  it("names each platform a hit's profile links to for the searched name, whatever its case", () => {
    const hit = outcome('alpha', 'hit', [
      'https://bravo.test/u/Alice',
      'https://charlie.test/u/someone-else',
      'https://delta.test/u/alice/',
      'https://elsewhere.example/alice',
    ]);
    expect(linkedPlatforms(hit, matcher, 'alice')).toEqual(['bravo', 'delta']);
  });

  it('names none for a hit without links, nor its own profile', () => {
    expect(linkedPlatforms(outcome('alpha', 'hit'), matcher, 'alice')).toEqual([]);
    expect(
      linkedPlatforms(outcome('alpha', 'hit', ['https://alpha.test/u/alice']), matcher, 'alice'),
    ).toEqual([]);
  });
});

describe('runSearchJob: a link to a platform that had not answered', () => {
  it('checks it once more and stores the later answer; an unlinked one keeps its first outcome', async () => {
    const checkedAgain: string[] = [];
    const engine = {
      async *search() {
        // Delta had not answered before any link to it was seen: it stays as it is.
        yield outcome('delta', 'error');
        yield outcome('alpha', 'hit', ['https://bravo.test/u/alice', 'https://delta.test/u/alice']);
        yield outcome('bravo', 'error');
        yield outcome('charlie', 'unknown');
      },
      async check(platform: { id: string }) {
        checkedAgain.push(platform.id);
        return outcome(platform.id, 'hit');
      },
    } as unknown as Engine;
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    const events = new LocalEventHub();
    const search: SearchRecord = {
      id: '00000000-0000-4000-8000-000000000019',
      username: 'alice',
      state: 'queued',
      tier: 'free',
      client: 'ip:127.0.0.1',
      platformIds: ['alpha', 'bravo', 'charlie', 'delta'],
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
        platformsById: byId,
        cache: { hitSeconds: 0, missSeconds: 0, otherSeconds: 0 },
        unmeasuredLatencyMs: 1000,
        now: () => 1,
        linkMatcher: new ProfileUrlMatcher(catalogue.platforms),
      },
      new AbortController().signal,
    );
    expect(checkedAgain).toEqual(['bravo']);
    const outcomes = (await store.listOutcomes(search.id)).map((s) => [
      s.outcome.platformId,
      s.outcome.status,
    ]);
    expect(outcomes.sort()).toEqual([
      ['alpha', 'hit'],
      ['bravo', 'hit'],
      ['charlie', 'unknown'],
      ['delta', 'error'],
    ]);
    expect(seen.at(-1)).toMatchObject({
      type: 'done',
      state: 'completed',
      progress: { checked: 4, total: 4, hits: 2, unknown: 1, errors: 1 },
    });
    await store.close();
  });
});
