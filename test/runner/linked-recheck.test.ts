/**
 * A platform that had not answered is checked once more when a hit's profile
 * links to its profile of the searched name, whichever came first, and the
 * later answer is the one stored (in place of the first when that was stored
 * already); one nothing links to keeps its first outcome, checked once.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { ProfileUrlMatcher } from '../../src/engine/verdict/linked-accounts.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { LocalEventHub, type SearchEvent } from '../../src/runner/events.js';
import { LinkedRechecks, linkedPlatforms } from '../../src/runner/linked-recheck.js';
import { runSearchJob, SearchCancelledError } from '../../src/runner/search-job.js';
import { createStore } from '../../src/store/create-store.js';
import type { SearchRecord, Store } from '../../src/store/store.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { jobDeps, queuedSearch } from '../support/search-job.js';

const catalogue = catalogueOf([entry('Alpha'), entry('Bravo'), entry('Charlie'), entry('Delta')]);

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

describe('LinkedRechecks', () => {
  const matcher = new ProfileUrlMatcher(catalogue.platforms);
  const toBravo = outcome('alpha', 'hit', ['https://bravo.test/u/alice']);

  it('checks first a linked platform that had not answered, once', () => {
    const plan = new LinkedRechecks(matcher, 'alice');
    expect(plan.arriving(toBravo)).toEqual({ checkFirst: false, owed: [] });
    expect(plan.arriving(outcome('bravo', 'error')).checkFirst).toBe(true);
    expect(plan.arriving(outcome('bravo', 'error')).checkFirst).toBe(false);
    expect(plan.stored(outcome('bravo', 'error'))).toBe(false);
  });

  it('owes a check to an unanswered outcome stored before the link, once, whichever hit links to it', () => {
    const plan = new LinkedRechecks(matcher, 'alice');
    const bravo = outcome('bravo', 'unknown');
    expect(plan.arriving(bravo).checkFirst).toBe(false);
    expect(plan.stored(bravo)).toBe(false);
    expect(plan.arriving(toBravo).owed).toEqual([bravo]);
    expect(plan.arriving(outcome('charlie', 'hit', ['https://bravo.test/u/alice'])).owed).toEqual([]);
  });

  it('checks again one linked while it was being stored, when it is stored', () => {
    const plan = new LinkedRechecks(matcher, 'alice');
    const bravo = outcome('bravo', 'error');
    plan.arriving(bravo);
    expect(plan.arriving(toBravo).owed).toEqual([]);
    expect(plan.stored(bravo)).toBe(true);
    expect(plan.stored(bravo)).toBe(false);
  });

  it('owes nothing for answers, unlinked platforms, or without a matcher', () => {
    const plan = new LinkedRechecks(matcher, 'alice');
    plan.stored(outcome('bravo', 'miss'));
    plan.stored(outcome('charlie', 'error'));
    expect(plan.arriving(toBravo).owed).toEqual([]);
    const blind = new LinkedRechecks(undefined, 'alice');
    blind.stored(outcome('bravo', 'error'));
    expect(blind.arriving(toBravo).owed).toEqual([]);
  });

  it('on resume, owes a check only to those stored before a hit linking to them', () => {
    const plan = new LinkedRechecks(matcher, 'alice');
    const bravo = outcome('bravo', 'error');
    const delta = outcome('delta', 'unknown');
    const owed = plan.resume([
      bravo,
      outcome('alpha', 'hit', ['https://bravo.test/u/alice', 'https://delta.test/u/alice']),
      // Stored after the link: already the later answer.
      delta,
    ]);
    expect(owed).toEqual([bravo]);
    expect(plan.arriving(outcome('charlie', 'hit', ['https://delta.test/u/alice'])).owed).toEqual([]);
  });
});

const JOB_ID = '00000000-0000-4000-8000-000000000019';

interface JobRun {
  readonly store: Store;
  readonly seen: SearchEvent[];
  readonly checkedAgain: string[];
  readonly search: SearchRecord;
}

/** Runs a search of alice over the four platforms on an engine that yields `first`, then answers checks with `again`. */
async function runJob(options: {
  first: Outcome[] | ((store: Store) => AsyncIterable<Outcome>);
  again?: (platformId: string, signal: AbortSignal) => Promise<Outcome>;
  stored?: Outcome[];
  signal?: AbortSignal;
  store?: Store;
}): Promise<JobRun> {
  const checkedAgain: string[] = [];
  const store = options.store ?? createStore({ kind: 'sqlite', path: ':memory:' });
  const first = options.first;
  const engine = {
    search:
      typeof first === 'function'
        ? () => first(store)
        : async function* () {
            yield* first;
          },
    async check(platform: { id: string }, _username: string, signal: AbortSignal) {
      checkedAgain.push(platform.id);
      return options.again ? options.again(platform.id, signal) : outcome(platform.id, 'hit');
    },
  } as unknown as Engine;
  const events = new LocalEventHub();
  const search = queuedSearch(JOB_ID, 'alice', ['alpha', 'bravo', 'charlie', 'delta']);
  await store.createSearch(search);
  if (options.stored) await store.addOutcomes(search.id, options.stored);
  const seen: SearchEvent[] = [];
  events.subscribe(search.id, (event) => seen.push(event));
  await runSearchJob(
    search,
    jobDeps(engine, store, catalogue.platforms, {
      events,
      linkMatcher: new ProfileUrlMatcher(catalogue.platforms),
    }),
    options.signal ?? new AbortController().signal,
  );
  return { store, seen, checkedAgain, search };
}

const statuses = async (run: JobRun) =>
  (await run.store.listOutcomes(run.search.id)).map((s) => [s.seq, s.outcome.platformId, s.outcome.status]);
const results = (run: JobRun) =>
  run.seen.flatMap((e) => (e.type === 'result' ? [[e.seq, e.outcome.platformId, e.outcome.status]] : []));

describe('runSearchJob: a link to a platform that had not answered', () => {
  it('checks it once more whichever came first, keeping the later answer; an unlinked one keeps its first outcome', async () => {
    const run = await runJob({
      first: [
        // Delta had not answered before any link to it was seen: stored, then replaced.
        outcome('delta', 'error'),
        outcome('alpha', 'hit', ['https://bravo.test/u/alice', 'https://delta.test/u/alice']),
        // Bravo comes after the link: checked again before it is stored.
        outcome('bravo', 'error'),
        outcome('charlie', 'unknown'),
      ],
    });
    expect(run.checkedAgain.sort()).toEqual(['bravo', 'delta']);
    const stored = await statuses(run);
    expect(stored.map(([, id, status]) => [id, status]).sort()).toEqual([
      ['alpha', 'hit'],
      ['bravo', 'hit'],
      ['charlie', 'unknown'],
      ['delta', 'hit'],
    ]);
    // Delta's later answer came after the hit that linked to it, with a seq of its own.
    const seqOf = (id: string) => stored.find(([, p]) => p === id)![0] as number;
    expect(seqOf('delta')).toBeGreaterThan(seqOf('alpha'));
    // Every result was published once stored, seqs ascending; delta twice (first answer, later one).
    const published = results(run);
    expect(published.map(([seq]) => seq)).toEqual(
      [...published.map(([seq]) => seq)].sort((a, b) => +a! - +b!),
    );
    expect(published.filter(([, id]) => id === 'delta').map(([, , status]) => status)).toEqual([
      'error',
      'hit',
    ]);
    expect(published.at(-1)).toEqual([seqOf('delta'), 'delta', 'hit']);
    const final = { checked: 4, total: 4, hits: 3, unknown: 1, errors: 0 };
    expect(run.seen.at(-1)).toMatchObject({ type: 'done', state: 'completed', progress: final });
    expect(await run.store.progress(run.search.id)).toMatchObject({ checked: 4, hits: 3 });
    await run.store.close();
  });

  it('replaces an unanswered outcome stored before the hit linking to it arrived', async () => {
    const run = await runJob({
      async *first(store) {
        yield outcome('delta', 'unknown');
        // The engine's next answer comes only once delta's is stored (bounded wait on a condition).
        for (let i = 0; i < 500 && (await store.listOutcomes(JOB_ID)).length === 0; i++)
          await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await store.listOutcomes(JOB_ID)).map((s) => s.outcome.status)).toEqual(['unknown']);
        yield outcome('alpha', 'hit', ['https://delta.test/u/alice']);
      },
      again: async (id) => outcome(id, 'miss'),
    });
    expect(run.checkedAgain).toEqual(['delta']);
    expect(await statuses(run)).toEqual([
      [2, 'alpha', 'hit'],
      [3, 'delta', 'miss'],
    ]);
    expect(results(run)).toEqual([
      [1, 'delta', 'unknown'],
      [2, 'alpha', 'hit'],
      [3, 'delta', 'miss'],
    ]);
    // The progress published with the later answer moved delta's count from unknown to miss.
    const last = run.seen.filter((e) => e.type === 'result').at(-1);
    expect(last).toMatchObject({ progress: { checked: 2, hits: 1, answered: 2, unknown: 0 } });
    await run.store.close();
  });

  it('checks once a platform two hits link to, and keeps the first answer when the engine fails', async () => {
    const run = await runJob({
      first: [
        outcome('delta', 'error'),
        outcome('alpha', 'hit', ['https://delta.test/u/alice']),
        outcome('charlie', 'hit', ['https://delta.test/u/alice', 'https://bravo.test/u/alice']),
        outcome('bravo', 'unknown'),
      ],
      again: async () => {
        throw new Error('engine broke');
      },
    });
    expect(run.checkedAgain.sort()).toEqual(['bravo', 'delta']);
    expect((await statuses(run)).map(([, id, status]) => [id, status]).sort()).toEqual([
      ['alpha', 'hit'],
      ['bravo', 'unknown'],
      ['charlie', 'hit'],
      ['delta', 'error'],
    ]);
    expect(results(run)).toHaveLength(4);
    expect(run.seen.at(-1)).toMatchObject({ type: 'done', state: 'completed' });
    await run.store.close();
  });

  it('on resume, checks again one stored unanswered before the link, not one stored after it', async () => {
    const run = await runJob({
      stored: [
        outcome('delta', 'error'),
        outcome('alpha', 'hit', ['https://bravo.test/u/alice', 'https://delta.test/u/alice']),
        // Stored after the link, on the earlier run: already its later answer.
        outcome('bravo', 'error'),
      ],
      first: [outcome('charlie', 'miss')],
    });
    expect(run.checkedAgain).toEqual(['delta']);
    // Delta's later answer takes a new seq (4 or 5: charlie's check runs meanwhile); seq 1 is gone.
    const stored = await statuses(run);
    expect(stored.slice(0, 2)).toEqual([
      [2, 'alpha', 'hit'],
      [3, 'bravo', 'error'],
    ]);
    expect(stored.slice(2).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      [expect.any(Number), 'charlie', 'miss'],
      [expect.any(Number), 'delta', 'hit'],
    ]);
    expect(
      stored
        .slice(2)
        .map(([seq]) => seq)
        .sort(),
    ).toEqual([4, 5]);
    expect(run.seen.at(-1)).toMatchObject({
      type: 'done',
      progress: { checked: 4, hits: 2, errors: 1, unknown: 0 },
    });
    await run.store.close();
  });

  it('ends promptly when stopped while a linked platform is checked again, keeping its first answer', async () => {
    const controller = new AbortController();
    const store = createStore({ kind: 'sqlite', path: ':memory:' });
    const job = runJob({
      store,
      first: [outcome('delta', 'error'), outcome('alpha', 'hit', ['https://delta.test/u/alice'])],
      // The check again hangs until the search is stopped.
      again: (_id, signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(new Error('shutdown'));
        }),
      signal: controller.signal,
    });
    await expect(job).rejects.toBeInstanceOf(SearchCancelledError);
    const listed = await store.listOutcomes('00000000-0000-4000-8000-000000000019');
    expect(listed.map((s) => [s.outcome.platformId, s.outcome.status])).toEqual([
      ['delta', 'error'],
      ['alpha', 'hit'],
    ]);
    await store.close();
  });
});
