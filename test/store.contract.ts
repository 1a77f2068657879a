/**
 * The rules every Store backend keeps, as one suite: `describeStoreContract`
 * runs it against a fresh store per test. Each rule here comes from a doc
 * comment in src/store/roles/ (the role interfaces Store is made of), except where a test says otherwise.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControlRecord } from '../src/engine/controls/control.js';
import {
  ERROR_REASONS,
  INVALID_REASONS,
  type Outcome,
  type OutcomeReason,
  type OutcomeStatus,
  UNKNOWN_REASONS,
} from '../src/engine/verdict/outcome.js';
import { encodeOutcome } from '../src/store/compact-outcome.js';
import { NEVER_ANSWERED_MS, recentLatencies } from '../src/store/recent-latencies.js';
import type { ApiKeyRecord, PlatformStats, SearchRecord, Store } from '../src/store/store.js';
import { addOne } from './support/add-one.js';
import { putCached } from './support/cached.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const MINUTE = 60_000;

/** A realistic outcome of each kind, as the engine would leave it. */
function outcome(platformId: string, status: OutcomeStatus = 'miss', username = 'alice'): Outcome {
  const url = `https://${platformId}.example/${username}`;
  const base = {
    platform: platformId.charAt(0).toUpperCase() + platformId.slice(1),
    platformId,
    category: 'social' as const,
    url,
  };
  switch (status) {
    case 'hit':
      return {
        ...base,
        status,
        responseTime: 312,
        evidence: {
          rule: 'exists: status 200',
          attempts: 1,
          httpStatus: 200,
          finalUrl: url,
          bytesRead: 48_213,
        },
      };
    case 'miss':
      return {
        ...base,
        status,
        responseTime: 187,
        evidence: {
          rule: 'missing: status 404',
          attempts: 1,
          httpStatus: 404,
          finalUrl: url,
          bytesRead: 1_024,
        },
      };
    case 'unknown':
      return {
        ...base,
        status,
        reason: 'waf',
        responseTime: 95.25,
        evidence: {
          rule: 'shield: cloudflare-challenge',
          attempts: 2,
          httpStatus: 403,
          finalUrl: url,
          bytesRead: 6_400,
        },
      };
    case 'error':
      return {
        ...base,
        status,
        reason: 'timeout',
        responseTime: 10_000,
        evidence: { rule: 'timeout', attempts: 3 },
      };
    case 'invalid':
      return {
        ...base,
        status,
        reason: 'username_rule',
        responseTime: 0,
        evidence: { rule: 'username: ^[a-z0-9_]{3,20}$', attempts: 0 },
      };
  }
}

function search(id: string, overrides: Partial<SearchRecord> = {}): SearchRecord {
  return {
    id,
    username: 'alice',
    state: 'queued',
    tier: 'free',
    client: 'ip:203.0.113.7',
    platformIds: ['github', 'gitlab', 'reddit'],
    estimatedSeconds: 12,
    createdAt: T0,
    ...overrides,
  };
}

function apiKey(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    name: `key ${id}`,
    tier: 'professional',
    hash: createHash('sha256').update(`usk_${id}`).digest('hex'),
    createdAt: T0,
    ...overrides,
  };
}

/** The one cached outcome of a platform, read as a search reads the cache. */
async function cachedOf(store: Store, username: string, platformId: string, now: number) {
  return (await store.getCachedOutcomes(username, [platformId], now)).get(platformId);
}

const byPlatformId = (a: PlatformStats, b: PlatformStats) => (a.platformId < b.platformId ? -1 : 1);

/**
 * `make` gives a fresh, empty store for each test. After it, `cleanup` runs
 * when given (it must close the store, which a test may have closed already),
 * else the store is closed.
 */
export function describeStoreContract(
  name: string,
  make: () => Promise<Store> | Store,
  cleanup?: (s: Store) => Promise<void>,
): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await make();
    });

    afterEach(async () => {
      if (cleanup) await cleanup(store);
      else await store.close();
    });

    describe('searches', () => {
      it('reads back a created search as it was given', async () => {
        const created = search('s1', { tier: 'professional', client: 'key:k1', estimatedSeconds: 7.5 });
        await store.createSearch(created);
        expect(await store.getSearch('s1')).toEqual(created);
      });

      it('reads back a private search as private, and a search not made private without the field', async () => {
        const secret = search('s1', { tier: 'professional', client: 'key:k1', private: true });
        await store.createSearch(secret);
        await store.createSearch(search('s2'));
        expect(await store.getSearch('s1')).toEqual(secret);
        expect(await store.getSearch('s2')).not.toHaveProperty('private');
        expect((await store.snapshot('s1'))?.search.private).toBe(true);
        await store.updateSearch('s1', { state: 'running', startedAt: T0 });
        expect((await store.unfinishedSearches()).find((s) => s.id === 's1')?.private).toBe(true);
      });

      it('reads back a recursive search and the follow-ups recorded on it, JSON kept whole', async () => {
        const parent = search('s1', { recursive: true });
        await store.createSearch(parent);
        await store.createSearch(search('s2'));
        expect(await store.getSearch('s1')).toEqual(parent);
        expect(await store.getSearch('s2')).not.toHaveProperty('recursive');
        expect(await store.getSearch('s2')).not.toHaveProperty('followUps');
        const followUps = [
          { username: 'bob', from: 'alpha', queryId: 's3' },
          { username: 'Ra"bbit\\', from: 'alpha', notSearched: 'search limit reached' },
        ];
        await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + 5 });
        await store.updateSearch('s1', { followUps });
        expect(await store.getSearch('s1')).toEqual({
          ...parent,
          state: 'completed',
          finishedAt: T0 + 5,
          followUps,
        });
        expect((await store.snapshot('s1'))?.search.followUps).toEqual(followUps);
        // A later patch without them keeps them.
        await store.updateSearch('s1', { error: 'x' });
        expect((await store.getSearch('s1'))?.followUps).toEqual(followUps);
      });

      it('reads back every optional field', async () => {
        const failed = search('s1', {
          state: 'error',
          startedAt: T0 + 1_000,
          finishedAt: T0 + 9_000,
          error: 'engine stopped',
          platformIds: [],
        });
        await store.createSearch(failed);
        expect(await store.getSearch('s1')).toEqual(failed);
      });

      it('answers undefined for an unknown id', async () => {
        await store.createSearch(search('s1'));
        expect(await store.getSearch('nope')).toBeUndefined();
      });

      it('refuses a second search with an id taken already (code duplicate_id), keeping the first', async () => {
        await store.createSearch(search('s1'));
        await expect(
          store.createSearch(search('s1', { username: 'bob', state: 'running' })),
        ).rejects.toMatchObject({ name: 'UserscoutError', code: 'duplicate_id' });
        expect(await store.getSearch('s1')).toEqual(search('s1'));
        expect((await store.unfinishedSearches()).map((s) => s.id)).toEqual(['s1']);
      });

      it('moves a search to another state and sets the fields given', async () => {
        await store.createSearch(search('s1'));
        await store.updateSearch('s1', { state: 'running', startedAt: T0 + 500 });
        expect(await store.getSearch('s1')).toEqual(search('s1', { state: 'running', startedAt: T0 + 500 }));

        await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + 4_000 });
        expect(await store.getSearch('s1')).toEqual(
          search('s1', { state: 'completed', startedAt: T0 + 500, finishedAt: T0 + 4_000 }),
        );
      });

      it('sets an error with the error state', async () => {
        await store.createSearch(search('s1', { state: 'running', startedAt: T0 }));
        await store.updateSearch('s1', {
          state: 'error',
          finishedAt: T0 + 50,
          error: 'catalogue unavailable',
        });
        expect(await store.getSearch('s1')).toMatchObject({
          state: 'error',
          startedAt: T0,
          finishedAt: T0 + 50,
          error: 'catalogue unavailable',
        });
      });

      it('updates only the search named', async () => {
        await store.createSearch(search('s1'));
        await store.createSearch(search('s2'));
        await store.updateSearch('s1', { state: 'running' });
        expect((await store.getSearch('s2'))?.state).toBe('queued');
      });

      // Not in the doc comments: updating an unknown search creates nothing and does not fail.
      it('creates nothing when updating an unknown id', async () => {
        await store.updateSearch('nope', { state: 'running' });
        expect(await store.getSearch('nope')).toBeUndefined();
      });
    });

    describe('outcomes', () => {
      beforeEach(async () => {
        await store.createSearch(search('s1'));
      });

      it('numbers outcomes 1, 2, 3... and lists them in that order, exactly as added', async () => {
        // Platform ids out of alphabetical order, so seq order is not confused with id order.
        const added = [outcome('reddit', 'hit'), outcome('github', 'miss'), outcome('mastodon', 'unknown')];
        const seqs = [];
        for (const o of added) seqs.push(await addOne(store, 's1', o));
        expect(seqs).toEqual([1, 2, 3]);
        expect(await store.listOutcomes('s1')).toEqual(added.map((o, i) => ({ seq: i + 1, outcome: o })));
      });

      it('keeps every field of every kind of outcome', async () => {
        const added = (['hit', 'miss', 'unknown', 'error', 'invalid'] as const).map((status) =>
          outcome(`site-${status}`, status),
        );
        for (const o of added) await addOne(store, 's1', o);
        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => s.outcome)).toStrictEqual(added);
      });

      it('gives back every shape of outcome exactly, key order included (what the API serializes)', async () => {
        const hit = outcome('github', 'hit');
        const shapes: Outcome[] = [
          // A redirect elsewhere, a reused (cached) outcome, the username in the host and twice in a rule.
          {
            ...outcome('gitlab', 'miss'),
            evidence: {
              ...outcome('gitlab', 'miss').evidence,
              finalUrl: 'https://gitlab.example/users/sign_in',
            },
          },
          { ...hit, platformId: 'cached', evidence: { ...hit.evidence, cachedAt: T0 - MINUTE } },
          {
            ...hit,
            platformId: 'host',
            url: 'https://alice.host.example/',
            evidence: {
              ...hit.evidence,
              finalUrl: 'https://alice.host.example/about',
              rule: 'exists: text "alice" (alice)',
            },
          },
          {
            ...outcome('budget', 'unknown'),
            reason: 'budget_exhausted',
            responseTime: 0,
            evidence: { rule: 'not sent: waited 1200 ms', attempts: 0 },
          },
          {
            ...outcome('internal', 'error'),
            reason: 'internal',
            url: 'https://internal.example/',
            evidence: { rule: 'internal error: x\u0000y', attempts: 0 },
          },
          {
            ...outcome('unsafe', 'invalid'),
            reason: 'unsafe_username',
            evidence: { rule: 'must not contain "/"', attempts: 0 },
          },
          {
            ...outcome('accents', 'miss'),
            platform: 'Élan – 日本',
            url: 'https://accents.example/alice?q=ünï',
          },
        ];
        const seqs = await store.addOutcomes('s1', shapes);
        expect(seqs).toEqual(shapes.map((_, i) => i + 1));
        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => JSON.stringify(s.outcome))).toEqual(shapes.map((o) => JSON.stringify(o)));
        const [host] = await putCached(store, 'alice', shapes[2]!, T0 + MINUTE);
        expect(JSON.stringify((await store.getCachedOutcomes('alice', ['host'], T0)).get('host'))).toBe(
          JSON.stringify(host),
        );
      });

      it('numbers each search on its own', async () => {
        await store.createSearch(search('s2'));
        expect(await addOne(store, 's1', outcome('github'))).toBe(1);
        expect(await addOne(store, 's2', outcome('github'))).toBe(1);
        expect(await addOne(store, 's2', outcome('gitlab'))).toBe(2);
        expect(await addOne(store, 's1', outcome('gitlab'))).toBe(2);
        expect(await store.listOutcomes('s2')).toHaveLength(2);
      });

      it('never stores a platform twice in one search, nor counts it, nor leaves a gap', async () => {
        expect(await addOne(store, 's1', outcome('github', 'hit'))).toBe(1);
        expect(await addOne(store, 's1', outcome('github', 'miss'))).toBeUndefined();
        expect(await addOne(store, 's1', outcome('gitlab', 'miss'))).toBe(2);

        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => [s.seq, s.outcome.platformId, s.outcome.status])).toEqual([
          [1, 'github', 'hit'],
          [2, 'gitlab', 'miss'],
        ]);
        const progress = await store.progress('s1');
        expect(progress.checked).toBe(2);
        expect(progress.byStatus).toEqual({ hit: 1, miss: 1, unknown: 0, error: 0, invalid: 0 });
      });

      it('lists only outcomes after afterSeq', async () => {
        for (const id of ['a', 'b', 'c', 'd']) await addOne(store, 's1', outcome(id));
        expect((await store.listOutcomes('s1', { afterSeq: 2 })).map((s) => s.seq)).toEqual([3, 4]);
        expect((await store.listOutcomes('s1', { afterSeq: 0 })).map((s) => s.seq)).toEqual([1, 2, 3, 4]);
        expect(await store.listOutcomes('s1', { afterSeq: 4 })).toEqual([]);
      });

      it('lists only the statuses given, in seq order', async () => {
        const statuses: OutcomeStatus[] = ['hit', 'miss', 'error', 'hit', 'unknown', 'miss', 'hit'];
        for (const [i, status] of statuses.entries()) await addOne(store, 's1', outcome(`p${i}`, status));

        const hits = await store.listOutcomes('s1', { statuses: ['hit'] });
        expect(hits.map((s) => s.seq)).toEqual([1, 4, 7]);
        expect(hits.every((s) => s.outcome.status === 'hit')).toBe(true);

        const some = await store.listOutcomes('s1', { statuses: ['unknown', 'error'] });
        expect(some.map((s) => [s.seq, s.outcome.status])).toEqual([
          [3, 'error'],
          [5, 'unknown'],
        ]);
        expect(await store.listOutcomes('s1', { statuses: ['invalid'] })).toEqual([]);
      });

      it('applies afterSeq and statuses together', async () => {
        const statuses: OutcomeStatus[] = ['hit', 'miss', 'hit', 'miss', 'hit'];
        for (const [i, status] of statuses.entries()) await addOne(store, 's1', outcome(`p${i}`, status));
        const listed = await store.listOutcomes('s1', { afterSeq: 1, statuses: ['hit'] });
        expect(listed.map((s) => s.seq)).toEqual([3, 5]);
      });

      it('lists no outcome for an empty statuses list (only the statuses given)', async () => {
        await addOne(store, 's1', outcome('github', 'hit'));
        expect(await store.listOutcomes('s1', { statuses: [] })).toEqual([]);
      });

      it('lists nothing for a search without outcomes or an unknown search', async () => {
        expect(await store.listOutcomes('s1')).toEqual([]);
        expect(await store.listOutcomes('nope')).toEqual([]);
      });

      it('counts progress by status, with hits', async () => {
        const statuses: OutcomeStatus[] = [
          'hit',
          'miss',
          'miss',
          'unknown',
          'error',
          'invalid',
          'hit',
          'miss',
        ];
        for (const [i, status] of statuses.entries()) await addOne(store, 's1', outcome(`p${i}`, status));
        expect(await store.progress('s1')).toEqual({
          checked: 8,
          hits: 2,
          byStatus: { hit: 2, miss: 3, unknown: 1, error: 1, invalid: 1 },
        });
      });

      it('reports no progress for a search without outcomes or an unknown search', async () => {
        const none = { checked: 0, hits: 0, byStatus: { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 } };
        expect(await store.progress('s1')).toEqual(none);
        expect(await store.progress('nope')).toEqual(none);
      });

      // Implied by "exactly as stored": changing what was read back changes nothing stored.
      it('does not share stored outcomes with the caller', async () => {
        const added = outcome('github', 'hit');
        await addOne(store, 's1', added);
        const [first] = await store.listOutcomes('s1');
        (first!.outcome.evidence as { attempts: number }).attempts = 99;
        expect((await store.listOutcomes('s1'))[0]!.outcome).toEqual(added);
      });

      // Not in the doc comments: an outcome belongs to a search, so one for an unknown search is refused.
      it('refuses an outcome for an unknown search', async () => {
        await expect(addOne(store, 'nope', outcome('github'))).rejects.toMatchObject({
          code: 'search_not_found',
        });
        expect(await store.listOutcomes('nope')).toEqual([]);
      });
    });

    describe('outcomes in a batch', () => {
      beforeEach(async () => {
        await store.createSearch(search('s1'));
      });

      it('numbers a batch in the order given, after what is stored, and stores every field', async () => {
        expect(await addOne(store, 's1', outcome('reddit', 'hit'))).toBe(1);
        const batch = (['error', 'miss', 'unknown', 'invalid', 'hit'] as const).map((status) =>
          outcome(`site-${status}`, status),
        );
        expect(await store.addOutcomes('s1', batch)).toEqual([2, 3, 4, 5, 6]);
        const listed = await store.listOutcomes('s1');
        expect(listed.slice(1)).toStrictEqual(batch.map((o, i) => ({ seq: i + 2, outcome: o })));
        expect(await addOne(store, 's1', outcome('gitlab'))).toBe(7);
      });

      it('skips a platform stored already or given twice, without a seq, a count or a gap', async () => {
        await addOne(store, 's1', outcome('github', 'hit'));
        const seqs = await store.addOutcomes('s1', [
          outcome('github', 'miss'),
          outcome('gitlab', 'miss'),
          outcome('gitlab', 'hit'),
          outcome('reddit', 'error'),
        ]);
        expect(seqs).toEqual([undefined, 2, undefined, 3]);
        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => [s.seq, s.outcome.platformId, s.outcome.status])).toEqual([
          [1, 'github', 'hit'],
          [2, 'gitlab', 'miss'],
          [3, 'reddit', 'error'],
        ]);
        expect(await store.progress('s1')).toEqual({
          checked: 3,
          hits: 1,
          byStatus: { hit: 1, miss: 1, unknown: 0, error: 1, invalid: 0 },
        });
      });

      it('takes an empty batch', async () => {
        expect(await store.addOutcomes('s1', [])).toEqual([]);
        expect(await addOne(store, 's1', outcome('github'))).toBe(1);
      });

      it('numbers concurrent batches without gaps or duplicates', async () => {
        const batches = Array.from({ length: 10 }, (_, b) =>
          Array.from({ length: 20 }, (_, i) => outcome(`platform-${b}-${i}`)),
        );
        const seqs = (await Promise.all(batches.map((batch) => store.addOutcomes('s1', batch)))).flat();
        const expected = Array.from({ length: 200 }, (_, i) => i + 1);
        expect([...seqs].sort((a, b) => a! - b!)).toEqual(expected);
        const listed = await store.listOutcomes('s1');
        for (const [i, o] of batches.flat().entries()) expect(listed[seqs[i]! - 1]!.outcome).toEqual(o);
        expect((await store.progress('s1')).checked).toBe(200);
      });

      it('refuses a batch for an unknown search, storing none of it', async () => {
        for (const batch of [[outcome('github')], []]) {
          await expect(store.addOutcomes('nope', batch)).rejects.toMatchObject({ code: 'search_not_found' });
        }
        // Nothing was kept under that id: a search created with it afterwards starts empty.
        expect(await store.getSearch('nope')).toBeUndefined();
        await store.createSearch(search('nope'));
        expect(await store.listOutcomes('nope')).toEqual([]);
        expect((await store.progress('nope')).checked).toBe(0);
      });
    });

    describe('replacing an outcome', () => {
      beforeEach(async () => {
        await store.createSearch(search('s1'));
        await store.addOutcomes('s1', [
          outcome('github', 'error'),
          outcome('gitlab', 'miss'),
          outcome('reddit', 'hit'),
        ]);
      });
      const later = { ...outcome('github', 'hit'), responseTime: 420 };

      it('gives the later answer the next seq and lists it there, the replaced one no more', async () => {
        expect(await store.replaceOutcome('s1', later)).toBe(4);
        expect(await store.listOutcomes('s1')).toStrictEqual([
          { seq: 2, outcome: outcome('gitlab', 'miss') },
          { seq: 3, outcome: outcome('reddit', 'hit') },
          { seq: 4, outcome: later },
        ]);
        // Followed by seq, it comes after what was seen; by status, the old status lists it no more.
        expect(await store.listOutcomes('s1', { afterSeq: 3 })).toStrictEqual([{ seq: 4, outcome: later }]);
        expect(await store.listOutcomes('s1', { afterSeq: 4 })).toEqual([]);
        expect(await store.listOutcomes('s1', { statuses: ['error'] })).toEqual([]);
        expect((await store.listOutcomes('s1', { statuses: ['hit'] })).map((s) => s.seq)).toEqual([3, 4]);
      });

      it('moves one count from the old status to the new, checked unchanged', async () => {
        await store.replaceOutcome('s1', later);
        expect(await store.progress('s1')).toEqual({
          checked: 3,
          hits: 2,
          byStatus: { hit: 2, miss: 1, unknown: 0, error: 0, invalid: 0 },
        });
        expect(await store.snapshot('s1')).toEqual({
          search: await store.getSearch('s1'),
          progress: await store.progress('s1'),
          outcomes: await store.listOutcomes('s1'),
        });
        expect((await store.snapshot('s1', { statuses: ['hit'] }))?.outcomes.map((s) => s.seq)).toEqual([
          3, 4,
        ]);
      });

      it('never gives the replaced seq again, and still stores the platform once', async () => {
        await store.replaceOutcome('s1', later);
        expect(await addOne(store, 's1', outcome('github', 'miss'))).toBeUndefined();
        expect(await store.addOutcomes('s1', [outcome('mastodon'), outcome('github')])).toEqual([
          5,
          undefined,
        ]);
        expect(await store.replaceOutcome('s1', outcome('github', 'miss'))).toBe(6);
        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => [s.seq, s.outcome.platformId, s.outcome.status])).toEqual([
          [2, 'gitlab', 'miss'],
          [3, 'reddit', 'hit'],
          [5, 'mastodon', 'miss'],
          [6, 'github', 'miss'],
        ]);
        expect(await store.progress('s1')).toEqual({
          checked: 4,
          hits: 1,
          byStatus: { hit: 1, miss: 3, unknown: 0, error: 0, invalid: 0 },
        });
      });

      it('replaces nothing for a platform not stored, and gives no seq', async () => {
        expect(await store.replaceOutcome('s1', outcome('mastodon', 'hit'))).toBeUndefined();
        expect((await store.listOutcomes('s1')).map((s) => s.seq)).toEqual([1, 2, 3]);
        expect((await store.progress('s1')).checked).toBe(3);
        expect(await addOne(store, 's1', outcome('mastodon'))).toBe(4);
      });

      it('keeps the later answer once the search has ended', async () => {
        await store.replaceOutcome('s1', later);
        await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + MINUTE });
        const before = await store.listOutcomes('s1');
        expect(before.map((s) => s.seq)).toEqual([2, 3, 4]);
        expect(before[2]!.outcome).toStrictEqual(later);
        // Replaced after it ended too (a resumed search's last check).
        expect(await store.replaceOutcome('s1', outcome('gitlab', 'unknown'))).toBe(5);
        expect((await store.listOutcomes('s1')).map((s) => [s.seq, s.outcome.platformId])).toEqual([
          [3, 'reddit'],
          [4, 'github'],
          [5, 'gitlab'],
        ]);
        expect((await store.progress('s1')).byStatus).toEqual({
          hit: 2,
          miss: 0,
          unknown: 1,
          error: 0,
          invalid: 0,
        });
      });

      it('numbers concurrent replacements and additions without duplicates, each platform listed once', async () => {
        const more = Array.from({ length: 10 }, (_, i) => outcome(`more-${i}`));
        const seqs = await Promise.all([
          store.replaceOutcome('s1', later),
          store.replaceOutcome('s1', outcome('gitlab', 'hit')),
          store.addOutcomes('s1', more.slice(0, 5)),
          store.replaceOutcome('s1', outcome('reddit', 'miss')),
          store.addOutcomes('s1', more.slice(5)),
        ]);
        const given = seqs.flat() as number[];
        expect([...given].sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i + 4));
        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => s.seq)).toEqual([...given].sort((a, b) => a - b));
        expect(new Set(listed.map((s) => s.outcome.platformId)).size).toBe(13);
        expect((await store.progress('s1')).checked).toBe(13);
      });

      it('refuses a replacement for an unknown search', async () => {
        await expect(store.replaceOutcome('nope', later)).rejects.toMatchObject({ code: 'search_not_found' });
      });
    });

    describe('snapshot', () => {
      it('reads a search with its progress and its outcomes, only the statuses given when given', async () => {
        await store.createSearch(search('s1'));
        await store.createSearch(search('s2'));
        const statuses: OutcomeStatus[] = ['miss', 'hit', 'error', 'hit'];
        const added = statuses.map((status, i) => outcome(`p${i}`, status));
        await store.addOutcomes('s1', added);
        await addOne(store, 's2', outcome('other', 'hit'));
        const progress = await store.progress('s1');
        expect(progress.checked).toBe(4);

        expect(await store.snapshot('s1')).toEqual({
          search: await store.getSearch('s1'),
          progress,
          outcomes: await store.listOutcomes('s1'),
        });
        const hits = await store.snapshot('s1', { statuses: ['hit'] });
        expect(hits?.progress).toEqual(progress);
        expect(hits?.outcomes).toEqual([
          { seq: 2, outcome: added[1] },
          { seq: 4, outcome: added[3] },
        ]);
        expect((await store.snapshot('s1', { statuses: [] }))?.outcomes).toEqual([]);
      });

      it('follows a search poll after poll, whatever statuses each asks: a replaced outcome at its new seq only, a hit become a miss no more a hit', async () => {
        await store.createSearch(search('s1'));
        const polls = async () => {
          const hits = (await store.snapshot('s1', { statuses: ['hit'] }))?.outcomes;
          const all = (await store.snapshot('s1'))?.outcomes;
          const misses = (await store.snapshot('s1', { statuses: ['miss', 'error'] }))?.outcomes;
          expect(hits).toEqual(await store.listOutcomes('s1', { statuses: ['hit'] }));
          expect(all).toEqual(await store.listOutcomes('s1'));
          expect(misses).toEqual(await store.listOutcomes('s1', { statuses: ['miss', 'error'] }));
          return hits!.map((s) => [s.seq, s.outcome.platformId]);
        };
        await store.addOutcomes('s1', [outcome('a', 'hit'), outcome('b', 'miss'), outcome('c', 'hit')]);
        expect(await polls()).toEqual([
          [1, 'a'],
          [3, 'c'],
        ]);
        // A hit answered again as a miss, a miss as a hit, between two polls.
        expect(await store.replaceOutcome('s1', outcome('a', 'miss'))).toBe(4);
        expect(await store.replaceOutcome('s1', outcome('b', 'hit'))).toBe(5);
        expect(await polls()).toEqual([
          [3, 'c'],
          [5, 'b'],
        ]);
        await addOne(store, 's1', outcome('d', 'hit'));
        expect(await store.replaceOutcome('s1', outcome('c', 'error'))).toBe(7);
        expect(await polls()).toEqual([
          [5, 'b'],
          [6, 'd'],
        ]);
        // Replaced twice between two polls: listed once, at its last seq.
        await store.replaceOutcome('s1', outcome('b', 'miss'));
        await store.replaceOutcome('s1', outcome('b', 'hit'));
        expect(await polls()).toEqual([
          [6, 'd'],
          [9, 'b'],
        ]);
        expect(await polls()).toEqual([
          [6, 'd'],
          [9, 'b'],
        ]);
      });

      it('reads a search polled before, swept, and created again under its id: only the new search’s outcomes', async () => {
        await store.createSearch(search('s1', { createdAt: T0 }));
        await store.addOutcomes('s1', [outcome('a', 'hit'), outcome('b', 'hit'), outcome('c', 'miss')]);
        expect((await store.snapshot('s1', { statuses: ['hit'] }))?.outcomes).toHaveLength(2);
        expect(await store.sweepSearches(T0 + 1)).toBe(1);
        await store.createSearch(search('s1', { createdAt: T0 + 2 }));
        const again = [outcome('x', 'hit'), outcome('y', 'hit'), outcome('z', 'miss'), outcome('w', 'hit')];
        await store.addOutcomes('s1', again);
        expect((await store.snapshot('s1', { statuses: ['hit'] }))?.outcomes).toEqual([
          { seq: 1, outcome: again[0] },
          { seq: 2, outcome: again[1] },
          { seq: 4, outcome: again[3] },
        ]);
        expect((await store.snapshot('s1'))?.outcomes).toEqual(await store.listOutcomes('s1'));
      });

      it('reads a search without outcomes, and nothing for an unknown search', async () => {
        await store.createSearch(search('s1'));
        expect(await store.snapshot('s1')).toEqual({
          search: await store.getSearch('s1'),
          progress: { checked: 0, hits: 0, byStatus: { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 } },
          outcomes: [],
        });
        expect(await store.snapshot('nope')).toBeUndefined();
      });
    });

    describe('a finished search (its outcomes packed)', () => {
      /** A hit with everything the engine adds to one: snippet, control, profile, linkedFrom. */
      function fullHit(platformId: string): Outcome {
        const base = outcome(platformId, 'hit');
        return {
          ...base,
          evidence: {
            ...base.evidence,
            snippet: `…<div class="name">alice</div> <div>[data-user="alice"]</div> at ${base.url}…`,
            control: 'control "qwertyuiop1234" read miss (missing: status 404) at 2025-01-15T11:58:00.000Z',
          },
          profile: {
            fullName: 'Alice A.',
            bio: 'alice on ' + platformId,
            links: [base.url],
            ids: { userId: '42' },
          },
          linkedFrom: ['github'],
        };
      }

      it('reads the same outcomes, progress and snapshots after it finishes, and takes later outcomes after them', async () => {
        await store.createSearch(search('s1'));
        const statuses: OutcomeStatus[] = ['miss', 'hit', 'error', 'unknown', 'invalid', 'miss', 'hit'];
        const added = statuses.map((status, i) =>
          status === 'hit' ? fullHit(`p${i}`) : outcome(`p${i}`, status),
        );
        await store.addOutcomes('s1', added.slice(0, 4));
        await store.addOutcomes('s1', added.slice(4));
        const before = {
          all: JSON.stringify(await store.listOutcomes('s1')),
          after: JSON.stringify(await store.listOutcomes('s1', { afterSeq: 3, statuses: ['hit', 'miss'] })),
          progress: await store.progress('s1'),
          hits: JSON.stringify((await store.snapshot('s1', { statuses: ['hit'] }))?.outcomes),
        };
        await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + 1 });
        expect(JSON.stringify(await store.listOutcomes('s1'))).toBe(before.all);
        expect(
          JSON.stringify(await store.listOutcomes('s1', { afterSeq: 3, statuses: ['hit', 'miss'] })),
        ).toBe(before.after);
        expect(await store.listOutcomes('s1', { afterSeq: 7 })).toEqual([]);
        expect(await store.progress('s1')).toEqual(before.progress);
        const snapshot = await store.snapshot('s1', { statuses: ['hit'] });
        expect(JSON.stringify(snapshot?.outcomes)).toBe(before.hits);
        expect(snapshot?.progress).toEqual(before.progress);
        expect(snapshot?.search.state).toBe('completed');

        // After it: a platform stored already is refused, a new one numbered next, and both read together.
        expect(await store.addOutcomes('s1', [outcome('p1', 'miss'), outcome('late', 'hit')])).toEqual([
          undefined,
          8,
        ]);
        expect(
          (await store.listOutcomes('s1', { afterSeq: 6 })).map((s) => [s.seq, s.outcome.platformId]),
        ).toEqual([
          [7, 'p6'],
          [8, 'late'],
        ]);
        await store.updateSearch('s1', { state: 'error', error: 'late' });
        const listed = await store.listOutcomes('s1');
        expect(JSON.stringify(listed.slice(0, 7))).toBe(before.all);
        expect(listed.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expect((await store.progress('s1')).byStatus).toEqual({ ...before.progress.byStatus, hit: 3 });
      });

      it('replaces an outcome after it finished, keeping the others as they were', async () => {
        await store.createSearch(search('s1'));
        const added = [fullHit('github'), outcome('gitlab'), outcome('reddit', 'error')];
        await store.addOutcomes('s1', added);
        await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + 1 });
        const later = fullHit('reddit');
        expect(await store.replaceOutcome('s1', later)).toBe(4);
        expect(JSON.stringify(await store.listOutcomes('s1'))).toBe(
          JSON.stringify([
            { seq: 1, outcome: added[0] },
            { seq: 2, outcome: added[1] },
            { seq: 4, outcome: later },
          ]),
        );
        expect((await store.progress('s1')).byStatus).toEqual({
          hit: 2,
          miss: 1,
          unknown: 0,
          error: 0,
          invalid: 0,
        });
        expect(await store.addOutcomes('s1', [outcome('github'), outcome('new')])).toEqual([undefined, 5]);
      });

      it('sweeps a finished search whole: created again under its id, it starts empty at seq 1', async () => {
        await store.createSearch(search('old', { createdAt: T0 - MINUTE }));
        await store.addOutcomes('old', [fullHit('github'), outcome('gitlab')]);
        await store.updateSearch('old', { state: 'completed', finishedAt: T0 });
        expect(await store.sweepSearches(T0)).toBe(1);
        await store.createSearch(search('old', { createdAt: T0 }));
        expect(await store.listOutcomes('old')).toEqual([]);
        expect((await store.progress('old')).checked).toBe(0);
        expect(await store.addOutcomes('old', [outcome('github')])).toEqual([1]);
      });
    });

    describe('concurrent outcomes', () => {
      beforeEach(async () => {
        await store.createSearch(search('s1'));
      });

      it('numbers 200 concurrent outcomes of distinct platforms 1..200, without gaps or duplicates', async () => {
        const added = Array.from({ length: 200 }, (_, i) =>
          outcome(`platform-${i}`, i % 7 === 0 ? 'hit' : 'miss'),
        );
        const seqs = await Promise.all(added.map((o) => addOne(store, 's1', o)));
        const expected = Array.from({ length: 200 }, (_, i) => i + 1);
        expect([...seqs].sort((a, b) => a! - b!)).toEqual(expected);

        const listed = await store.listOutcomes('s1');
        expect(listed.map((s) => s.seq)).toEqual(expected);
        // Each outcome is stored under the seq its own call returned.
        for (const [i, o] of added.entries()) expect(listed[seqs[i]! - 1]!.outcome).toEqual(o);
        expect(new Set(listed.map((s) => s.outcome.platformId)).size).toBe(200);
        expect((await store.progress('s1')).checked).toBe(200);
      });

      it('stores a platform once when it is added concurrently', async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            addOne(store, 's1', outcome('github', i % 2 ? 'hit' : 'miss')),
          ),
        );
        expect(results.filter((r) => r !== undefined)).toEqual([1]);
        expect(await store.listOutcomes('s1')).toHaveLength(1);
        expect((await store.progress('s1')).checked).toBe(1);
        expect(await addOne(store, 's1', outcome('gitlab'))).toBe(2);
      });
    });

    describe('unfinished searches', () => {
      it('lists queued and running searches, oldest first', async () => {
        await store.createSearch(search('newer', { state: 'running', createdAt: T0 + 3 * MINUTE }));
        await store.createSearch(search('done', { state: 'completed', createdAt: T0 }));
        await store.createSearch(search('oldest', { state: 'queued', createdAt: T0 + MINUTE }));
        await store.createSearch(search('failed', { state: 'error', createdAt: T0 + 2 * MINUTE }));
        await store.createSearch(search('middle', { state: 'queued', createdAt: T0 + 2 * MINUTE }));

        const unfinished = await store.unfinishedSearches();
        expect(unfinished.map((s) => s.id)).toEqual(['oldest', 'middle', 'newer']);
        expect(unfinished[2]).toEqual(search('newer', { state: 'running', createdAt: T0 + 3 * MINUTE }));
      });

      it('follows state changes', async () => {
        await store.createSearch(search('a', { createdAt: T0 }));
        await store.createSearch(search('b', { createdAt: T0 + 1 }));
        await store.updateSearch('a', { state: 'running', startedAt: T0 + 5 });
        expect((await store.unfinishedSearches()).map((s) => [s.id, s.state])).toEqual([
          ['a', 'running'],
          ['b', 'queued'],
        ]);
        await store.updateSearch('a', { state: 'completed', finishedAt: T0 + 10 });
        await store.updateSearch('b', { state: 'error', error: 'stopped' });
        expect(await store.unfinishedSearches()).toEqual([]);
      });
    });

    describe("a client's own searches", () => {
      beforeEach(async () => {
        // Two created at the same moment: the id breaks the tie.
        for (const [id, client, createdAt] of [
          ['k-old', 'key:k1', T0],
          ['other', 'key:k2', T0 + MINUTE],
          ['k-tie-a', 'key:k1', T0 + 2 * MINUTE],
          ['k-tie-b', 'key:k1', T0 + 2 * MINUTE],
          ['free', 'ip:127.0.0.1', T0 + 3 * MINUTE],
          ['k-new', 'key:k1', T0 + 4 * MINUTE],
        ] as const)
          await store.createSearch(search(id, { client, createdAt }));
      });

      it("lists only that client's searches, newest first, the id breaking ties, as created", async () => {
        const listed = await store.listSearchesByClient('key:k1', { limit: 10 });
        expect(listed.map((s) => s.id)).toEqual(['k-new', 'k-tie-b', 'k-tie-a', 'k-old']);
        expect(listed[0]).toEqual(search('k-new', { client: 'key:k1', createdAt: T0 + 4 * MINUTE }));
        expect((await store.listSearchesByClient('ip:127.0.0.1', { limit: 10 })).map((s) => s.id)).toEqual([
          'free',
        ]);
        expect(await store.listSearchesByClient('key:nobody', { limit: 10 })).toEqual([]);
      });

      it('pages after a cursor without skipping or repeating, ties included', async () => {
        const ids: string[] = [];
        let before: { createdAt: number; id: string } | undefined;
        for (let page = 0; page < 10; page++) {
          const listed = await store.listSearchesByClient('key:k1', { limit: 1, before });
          if (listed.length === 0) break;
          expect(listed).toHaveLength(1);
          ids.push(listed[0]!.id);
          before = { createdAt: listed[0]!.createdAt, id: listed[0]!.id };
        }
        expect(ids).toEqual(['k-new', 'k-tie-b', 'k-tie-a', 'k-old']);
        const rest = await store.listSearchesByClient('key:k1', {
          limit: 10,
          before: { createdAt: T0 + 2 * MINUTE, id: 'k-tie-b' },
        });
        expect(rest.map((s) => s.id)).toEqual(['k-tie-a', 'k-old']);
      });

      it('shows state changes and forgets swept searches', async () => {
        await store.updateSearch('k-new', {
          state: 'error',
          error: 'cancelled',
          finishedAt: T0 + 5 * MINUTE,
        });
        const [first] = await store.listSearchesByClient('key:k1', { limit: 1 });
        expect(first).toMatchObject({ id: 'k-new', state: 'error', error: 'cancelled' });
        await store.sweepSearches(T0 + MINUTE);
        expect((await store.listSearchesByClient('key:k1', { limit: 10 })).map((s) => s.id)).toEqual([
          'k-new',
          'k-tie-b',
          'k-tie-a',
        ]);
      });
    });

    describe('sweep', () => {
      beforeEach(async () => {
        for (const [id, createdAt, state] of [
          ['old-1', T0 - 3 * MINUTE, 'completed'],
          ['old-2', T0 - 2 * MINUTE, 'running'],
          ['at-cutoff', T0, 'completed'],
          ['new', T0 + MINUTE, 'queued'],
        ] as const) {
          await store.createSearch(search(id, { createdAt, state }));
          await addOne(store, id, outcome('github', 'hit'));
          await addOne(store, id, outcome('gitlab', 'miss'));
        }
      });

      it('deletes searches created before the cutoff with their outcomes, and says how many', async () => {
        expect(await store.sweepSearches(T0)).toBe(2);
        for (const id of ['old-1', 'old-2']) {
          expect(await store.getSearch(id)).toBeUndefined();
          expect(await store.listOutcomes(id)).toEqual([]);
          expect((await store.progress(id)).checked).toBe(0);
        }
        expect((await store.unfinishedSearches()).map((s) => s.id)).toEqual(['new']);
      });

      it('keeps searches created at or after the cutoff, with their outcomes', async () => {
        await store.sweepSearches(T0);
        for (const id of ['at-cutoff', 'new']) {
          expect(await store.getSearch(id)).toMatchObject({ id });
          expect((await store.listOutcomes(id)).map((s) => s.seq)).toEqual([1, 2]);
          expect(await store.progress(id)).toMatchObject({ checked: 2, hits: 1 });
        }
      });

      it('deletes nothing more when run again', async () => {
        await store.sweepSearches(T0);
        expect(await store.sweepSearches(T0)).toBe(0);
      });

      it('leaves no outcome behind: a search created again under a swept id starts at seq 1', async () => {
        await store.sweepSearches(T0);
        await store.createSearch(search('old-1', { createdAt: T0 + 2 * MINUTE }));
        expect(await store.listOutcomes('old-1')).toEqual([]);
        expect(await addOne(store, 'old-1', outcome('github', 'miss'))).toBe(1);
      });

      it('keeps fresh cached outcomes of the searches it keeps', async () => {
        const [kept] = await putCached(store, 'alice', outcome('github', 'hit'), T0 + 10 * MINUTE, T0);
        await store.sweepSearches(T0);
        expect(await cachedOf(store, 'alice', 'github', T0)).toEqual(kept);
      });

      it('takes the cached outcomes of a search it deletes with it', async () => {
        await putCached(store, 'alice', outcome('github', 'hit'), T0 + 10 * MINUTE, T0 - MINUTE);
        await store.sweepSearches(T0);
        expect(await cachedOf(store, 'alice', 'github', T0)).toBeUndefined();
      });
    });

    describe('outcome cache', () => {
      const expiresAt = T0 + 60 * MINUTE;
      let cached: Outcome;

      beforeEach(async () => {
        [cached] = (await putCached(store, 'alice', outcome('github', 'hit'), expiresAt)) as [Outcome];
      });

      it('gives the outcome the search stored, with the time it was checked', async () => {
        expect(cached).toStrictEqual({
          ...outcome('github', 'hit'),
          evidence: { ...outcome('github', 'hit').evidence, cachedAt: expiresAt - 60 * MINUTE },
        });
        expect(await cachedOf(store, 'alice', 'github', T0)).toStrictEqual(cached);
      });

      it('gives the outcome while it is fresh', async () => {
        expect(await cachedOf(store, 'alice', 'github', T0)).toStrictEqual(cached);
        expect(await cachedOf(store, 'alice', 'github', expiresAt - 1)).toStrictEqual(cached);
      });

      it('gives nothing once it has expired', async () => {
        expect(await cachedOf(store, 'alice', 'github', expiresAt)).toBeUndefined();
        expect(await cachedOf(store, 'alice', 'github', expiresAt + MINUTE)).toBeUndefined();
      });

      it('gives nothing for another username or platform; usernames are case-sensitive', async () => {
        expect(await cachedOf(store, 'bob', 'github', T0)).toBeUndefined();
        expect(await cachedOf(store, 'alice', 'gitlab', T0)).toBeUndefined();
        expect(await cachedOf(store, 'Alice', 'github', T0)).toBeUndefined();
      });

      it('keeps one outcome per username and platform', async () => {
        const [upper] = await putCached(store, 'Alice', outcome('github', 'miss', 'Alice'), expiresAt);
        const [gitlab] = await putCached(store, 'alice', outcome('gitlab', 'miss'), expiresAt);
        expect(await cachedOf(store, 'alice', 'github', T0)).toEqual(cached);
        expect(await cachedOf(store, 'Alice', 'github', T0)).toEqual(upper);
        expect(await cachedOf(store, 'alice', 'gitlab', T0)).toEqual(gitlab);
      });

      it('gives the fresh outcomes of the platforms asked at once, by platform id, leaving out those without one', async () => {
        const [gitlab] = await putCached(store, 'alice', outcome('gitlab', 'miss'), T0 + MINUTE);
        await putCached(store, 'alice', outcome('codeberg', 'miss'), T0); // expired at T0
        await putCached(store, 'alice', outcome('sourcehut', 'hit'), expiresAt); // not asked
        await putCached(store, 'bob', outcome('bitbucket', 'hit', 'bob'), expiresAt); // another name
        const found = await store.getCachedOutcomes(
          'alice',
          ['github', 'gitlab', 'codeberg', 'bitbucket', 'nowhere'],
          T0,
        );
        expect([...found.keys()].sort()).toEqual(['github', 'gitlab']);
        expect(found.get('github')).toStrictEqual(cached);
        expect(found.get('gitlab')).toStrictEqual(gitlab);
        expect(await store.getCachedOutcomes('alice', [], T0)).toEqual(new Map());
        expect(await store.getCachedOutcomes('Alice', ['github'], T0)).toEqual(new Map());
      });

      it('gives back every kind of outcome exactly as put, cachedAt and key order included', async () => {
        const cachedAt = T0 - 5 * MINUTE;
        // As the engine builds them (src/engine/verdict/outcome.ts, key order included) and the search
        // job caches them (cachedAt added last), so each takes the compact path, checked below.
        const subject = (id: string, username = 'alice') => ({
          platform: id.charAt(0).toUpperCase() + id.slice(1),
          platformId: id,
          category: 'social' as const,
          url: `https://${id}.example/${username}`,
        });
        const answer = (url: string, httpStatus: number, rule: string) => ({
          httpStatus,
          finalUrl: url,
          rule,
          attempts: 1,
          bytesRead: 48_213,
        });
        const hitOf = (username: string): Outcome => {
          const s = subject('full', username);
          return {
            ...s,
            status: 'hit',
            responseTime: 312,
            evidence: {
              ...answer(s.url, 200, 'exists: text "data-user"'),
              snippet: `…<div class="name">${username}</div> <div>[data-user="${username}"]</div> at ${s.url}…`,
              control: 'control "qwertyuiop1234" read miss (missing: status 404) at 2025-01-15T11:58:00.000Z',
              cachedAt,
            },
            profile: {
              fullName: 'Alice A.',
              bio: `${username} on full`,
              links: [s.url],
              ids: { userId: '42' },
            },
            linkedFrom: ['github'],
          };
        };
        const miss: Outcome = {
          ...subject('missed'),
          status: 'miss',
          responseTime: 187,
          evidence: { ...answer(subject('missed').url, 404, 'missing: status 404'), cachedAt },
        };
        // Each non-answer: unknown with an answer read (but budget_exhausted: nothing sent), error and invalid without one.
        const nonAnswer = (status: 'unknown' | 'error' | 'invalid', reason: OutcomeReason): Outcome => {
          const s = subject(`${status}-${reason.replaceAll('_', '-')}`);
          const sent = status === 'error' || (status === 'unknown' && reason !== 'budget_exhausted');
          return {
            ...s,
            status,
            reason,
            responseTime: sent ? 1_234 : 0,
            evidence:
              status === 'unknown' && sent
                ? { ...answer(s.url, 403, `shield: ${reason}`), cachedAt }
                : { rule: `${reason}: not answered for alice`, attempts: sent ? 3 : 0, cachedAt },
          };
        };
        const shapes = [
          hitOf('alice'),
          miss,
          ...UNKNOWN_REASONS.map((r) => nonAnswer('unknown', r)),
          ...ERROR_REASONS.map((r) => nonAnswer('error', r)),
          ...INVALID_REASONS.map((r) => nonAnswer('invalid', r)),
        ];
        // Format 1 (compact), not its JSON fallback: what a backend keeps for these.
        expect(shapes.map((o) => encodeOutcome(o, 'alice')[0])).toEqual(shapes.map(() => 1));
        await putCached(store, 'alice', shapes, expiresAt, cachedAt);
        // The same platform cached for another username gives back that username's addresses.
        await putCached(store, 'bob', hitOf('bob'), expiresAt, cachedAt);
        for (const o of shapes) {
          const got = await cachedOf(store, 'alice', o.platformId, T0);
          expect(got).toStrictEqual(o);
          expect(JSON.stringify(got)).toBe(JSON.stringify(o));
        }
        expect(JSON.stringify(await cachedOf(store, 'bob', 'full', T0))).toBe(JSON.stringify(hitOf('bob')));
      });

      it('gives the entry checked last, with its own expiry', async () => {
        const [later] = await putCached(
          store,
          'alice',
          outcome('github', 'unknown'),
          expiresAt + 60 * MINUTE,
          T0 + 1,
        );
        expect(await cachedOf(store, 'alice', 'github', T0)).toEqual(later);
        expect(await cachedOf(store, 'alice', 'github', expiresAt + MINUTE)).toEqual(later);
        // Checked later still, with a shorter life: it is read until it expires, then the one before.
        const [last] = await putCached(store, 'alice', outcome('github', 'miss'), T0 + MINUTE, T0 + 2);
        expect(await cachedOf(store, 'alice', 'github', T0)).toEqual(last);
        expect(await cachedOf(store, 'alice', 'github', T0 + 2 * MINUTE)).toEqual(later);
      });

      it('notes a batch of entries, each with its own check time and expiry, exact to the millisecond', async () => {
        await store.createSearch(
          search('b1', { username: 'bob', platformIds: ['github', 'gitlab', 'reddit'] }),
        );
        await store.addOutcomes('b1', [outcome('github', 'miss', 'bob'), outcome('gitlab', 'hit', 'bob')]);
        await store.putCachedOutcomes('bob', []);
        await store.putCachedOutcomes('bob', [
          { searchId: 'b1', platformId: 'github', cachedAt: T0 - 7, expiresAt },
          { searchId: 'b1', platformId: 'gitlab', cachedAt: T0 + 3, expiresAt: T0 + MINUTE + 1 },
          // Not stored in the search: nothing to give back.
          { searchId: 'b1', platformId: 'reddit', cachedAt: T0, expiresAt },
          // Not a platform of the search, and a search that does not exist: not kept.
          { searchId: 'b1', platformId: 'codeberg', cachedAt: T0, expiresAt },
          { searchId: 'nowhere', platformId: 'github', cachedAt: T0, expiresAt },
        ]);
        const at = (o: Outcome, cachedAt: number) => ({ ...o, evidence: { ...o.evidence, cachedAt } });
        expect(await cachedOf(store, 'bob', 'github', T0 + 2 * MINUTE)).toEqual(
          at(outcome('github', 'miss', 'bob'), T0 - 7),
        );
        expect(await cachedOf(store, 'bob', 'gitlab', T0 + MINUTE)).toEqual(
          at(outcome('gitlab', 'hit', 'bob'), T0 + 3),
        );
        expect(await cachedOf(store, 'bob', 'gitlab', T0 + MINUTE + 1)).toBeUndefined();
        expect(await cachedOf(store, 'bob', 'reddit', T0)).toBeUndefined();
        expect(await cachedOf(store, 'bob', 'codeberg', T0)).toBeUndefined();
        expect(await cachedOf(store, 'alice', 'gitlab', T0)).toBeUndefined();
      });

      it('keeps no entry of a search of another username', async () => {
        await store.createSearch(search('b1', { username: 'bob' }));
        await store.addOutcomes('b1', [outcome('gitlab', 'miss', 'bob')]);
        await store.putCachedOutcomes('alice', [
          { searchId: 'b1', platformId: 'gitlab', cachedAt: T0, expiresAt },
        ]);
        expect(await cachedOf(store, 'alice', 'gitlab', T0)).toBeUndefined();
      });

      it('reads a damaged row as a miss, and the rows beside it as before', async () => {
        await store.addCacheRow('alice', Uint8Array.of(1, 2, 0xff, 0xff), expiresAt);
        await store.addCacheRow('alice', Uint8Array.of(9), expiresAt);
        await store.addCacheRow('alice', new Uint8Array(0), expiresAt);
        expect(await cachedOf(store, 'alice', 'github', T0)).toEqual(cached);
        expect(await cachedOf(store, 'alice', 'gitlab', T0)).toBeUndefined();
      });

      it('keeps its rows for their expiry, and gives only those not expired', async () => {
        await store.addCacheRow('carol', Uint8Array.of(1, 2, 3), T0 + MINUTE);
        await store.addCacheRow('carol', Uint8Array.of(4, 5), T0 + 2 * MINUTE);
        const rows = (now: number) =>
          store
            .cacheRowsOf('carol', now)
            .then((list) => list.map((r) => [...r]).sort((a, b) => a.length - b.length));
        expect(await rows(T0)).toEqual([
          [4, 5],
          [1, 2, 3],
        ]);
        expect(await rows(T0 + MINUTE)).toEqual([[4, 5]]);
        expect(await rows(T0 + 2 * MINUTE)).toEqual([]);
        expect(await store.cacheRowsOf('Carol', T0)).toEqual([]);
      });
    });

    describe('API keys', () => {
      const first = apiKey('k1', { createdAt: T0 });
      const second = apiKey('k2', { name: 'ci', tier: 'free', createdAt: T0 + MINUTE });

      beforeEach(async () => {
        await store.createApiKey(first);
        await store.createApiKey(second);
      });

      it('finds a key by its hash', async () => {
        expect(await store.findApiKeyByHash(second.hash)).toEqual(second);
        expect(await store.findApiKeyByHash(first.hash)).toEqual(first);
      });

      it('refuses a key whose id or hash is taken already (code duplicate_id), keeping the first', async () => {
        await expect(store.createApiKey(apiKey('k1', { hash: 'f'.repeat(64) }))).rejects.toMatchObject({
          name: 'UserscoutError',
          code: 'duplicate_id',
        });
        await expect(store.createApiKey(apiKey('k9', { hash: first.hash }))).rejects.toMatchObject({
          name: 'UserscoutError',
          code: 'duplicate_id',
        });
        expect(await store.findApiKeyByHash('f'.repeat(64))).toBeUndefined();
        expect(await store.findApiKeyByHash(first.hash)).toEqual(first);
        const listed = await store.listApiKeys();
        expect([...listed].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([first, second]);
      });

      it('finds nothing for an unknown hash', async () => {
        expect(await store.findApiKeyByHash('0'.repeat(64))).toBeUndefined();
      });

      it('lists every key', async () => {
        const listed = await store.listApiKeys();
        expect([...listed].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([first, second]);
      });

      it('revokes a key once, recording when', async () => {
        expect(await store.revokeApiKey('k1', T0 + 5 * MINUTE)).toBe(true);
        expect(await store.findApiKeyByHash(first.hash)).toEqual({ ...first, revokedAt: T0 + 5 * MINUTE });
        expect((await store.listApiKeys()).find((k) => k.id === 'k1')?.revokedAt).toBe(T0 + 5 * MINUTE);

        expect(await store.revokeApiKey('k1', T0 + 9 * MINUTE)).toBe(false);
        expect((await store.findApiKeyByHash(first.hash))?.revokedAt).toBe(T0 + 5 * MINUTE);
        expect((await store.findApiKeyByHash(second.hash))?.revokedAt).toBeUndefined();
      });

      it('revokes nothing for an unknown id', async () => {
        expect(await store.revokeApiKey('nope', T0)).toBe(false);
        expect((await store.listApiKeys()).every((k) => k.revokedAt === undefined)).toBe(true);
      });

      it('keeps a key created revoked as revoked', async () => {
        const revoked = apiKey('k3', { createdAt: T0 + 2 * MINUTE, revokedAt: T0 + 3 * MINUTE });
        await store.createApiKey(revoked);
        expect(await store.findApiKeyByHash(revoked.hash)).toEqual(revoked);
        expect(await store.revokeApiKey('k3', T0 + 4 * MINUTE)).toBe(false);
      });
    });

    describe('platform statistics', () => {
      it('has none before any check', async () => {
        expect(await store.platformStats()).toEqual([]);
      });

      it('counts checks by status, averaging the response times of answered checks only', async () => {
        await store.recordCheck('github', 'hit', 300, T0);
        await store.recordCheck('github', 'miss', 100, T0 + 1_000);
        await store.recordCheck('github', 'unknown', 200, T0 + 2_000);
        await store.recordCheck('github', 'error', 10_000, T0 + 3_000);
        await store.recordCheck('github', 'invalid', 0, T0 + 4_000);
        await store.recordCheck('github', 'miss', 400, T0 + 5_000);

        const [stats] = await store.platformStats();
        expect(stats).toMatchObject({
          platformId: 'github',
          checks: 6,
          byStatus: { hit: 1, miss: 2, unknown: 1, error: 1, invalid: 1 },
          lastCheckedAt: T0 + 5_000,
        });
        expect(stats!.meanMs).toBeCloseTo((300 + 100 + 200 + 400) / 4, 9);
      });

      it('gives recentLatencies a platform checked but never answered as the slowest (its recentMs is 0)', async () => {
        await store.recordCheck('hangs', 'error', 10_000, T0);
        await store.recordCheck('hangs', 'error', 10_000, T0 + 1);
        await store.recordCheck('refused-name', 'invalid', 0, T0);
        await store.recordCheck('github', 'error', 10_000, T0);
        await store.recordCheck('github', 'hit', 500, T0 + 1);
        const recent = await recentLatencies(store);
        expect(recent.get('hangs')).toBe(NEVER_ANSWERED_MS);
        expect(recent.get('refused-name')).toBe(0);
        expect(recent.get('github')).toBeCloseTo(500, 9);
      });

      it('weights recent response times: alpha 0.2 per answered check, starting from the first', async () => {
        await store.recordCheck('github', 'error', 10_000, T0);
        expect((await store.platformStats())[0]!.recentMs).toBe(0);

        await store.recordCheck('github', 'hit', 500, T0 + 1);
        expect((await store.platformStats())[0]!.recentMs).toBeCloseTo(500, 9);

        await store.recordCheck('github', 'miss', 1_000, T0 + 2);
        expect((await store.platformStats())[0]!.recentMs).toBeCloseTo(0.8 * 500 + 0.2 * 1_000, 9);

        // Checks without an answer leave it alone.
        await store.recordCheck('github', 'error', 30_000, T0 + 3);
        await store.recordCheck('github', 'invalid', 0, T0 + 4);
        expect((await store.platformStats())[0]!.recentMs).toBeCloseTo(600, 9);

        await store.recordCheck('github', 'unknown', 100, T0 + 5);
        const [stats] = await store.platformStats();
        expect(stats!.recentMs).toBeCloseTo(0.8 * 600 + 0.2 * 100, 9);
        expect(stats!.meanMs).toBeCloseTo((500 + 1_000 + 100) / 3, 9);
        expect(stats!.lastCheckedAt).toBe(T0 + 5);
      });

      it('reports zero times for a platform that never answered', async () => {
        await store.recordCheck('down', 'error', 10_000, T0);
        await store.recordCheck('down', 'error', 10_000, T0 + 1);
        expect(await store.platformStats()).toEqual([
          {
            platformId: 'down',
            checks: 2,
            meanMs: 0,
            recentMs: 0,
            byStatus: { hit: 0, miss: 0, unknown: 0, error: 2, invalid: 0 },
            lastCheckedAt: T0 + 1,
          },
        ]);
      });

      it('keeps each platform apart', async () => {
        await store.recordCheck('github', 'hit', 120, T0);
        await store.recordCheck('gitlab', 'miss', 80, T0 + 10);
        await store.recordCheck('github', 'hit', 220, T0 + 20);
        const stats = (await store.platformStats()).sort(byPlatformId);
        expect(
          stats.map((s) => [s.platformId, s.checks, s.byStatus.hit, s.byStatus.miss, s.lastCheckedAt]),
        ).toEqual([
          ['github', 2, 2, 0, T0 + 20],
          ['gitlab', 1, 0, 1, T0 + 10],
        ]);
        expect(stats[0]!.meanMs).toBeCloseTo(170, 9);
        expect(stats[1]!.recentMs).toBeCloseTo(80, 9);
      });

      it('records a batch of checks as it records each', async () => {
        await store.recordChecks([]);
        await store.recordChecks([
          { platformId: 'github', status: 'hit', responseTimeMs: 500, at: T0 + 2 },
          { platformId: 'gitlab', status: 'error', responseTimeMs: 10_000, at: T0 + 1 },
          { platformId: 'github', status: 'error', responseTimeMs: 10_000, at: T0 },
        ]);
        const stats = (await store.platformStats()).sort(byPlatformId);
        expect(stats).toEqual([
          {
            platformId: 'github',
            checks: 2,
            meanMs: 500,
            recentMs: 500,
            byStatus: { hit: 1, miss: 0, unknown: 0, error: 1, invalid: 0 },
            lastCheckedAt: T0 + 2,
          },
          {
            platformId: 'gitlab',
            checks: 1,
            meanMs: 0,
            recentMs: 0,
            byStatus: { hit: 0, miss: 0, unknown: 0, error: 1, invalid: 0 },
            lastCheckedAt: T0 + 1,
          },
        ]);
      });

      it('weighs the answered checks of one platform in a batch in their order, after those stored', async () => {
        await store.recordChecks([{ platformId: 'github', status: 'hit', responseTimeMs: 500, at: T0 }]);
        await store.recordChecks([
          { platformId: 'github', status: 'miss', responseTimeMs: 1_000, at: T0 + 2 },
          { platformId: 'github', status: 'error', responseTimeMs: 10_000, at: T0 + 3 },
          { platformId: 'github', status: 'hit', responseTimeMs: 100, at: T0 + 1 },
        ]);
        const [stats] = await store.platformStats();
        expect(stats!.checks).toBe(4);
        expect(stats!.byStatus).toEqual({ hit: 2, miss: 1, unknown: 0, error: 1, invalid: 0 });
        expect(stats!.lastCheckedAt).toBe(T0 + 3);
        expect(stats!.meanMs).toBeCloseTo(1_600 / 3, 9);
        expect(stats!.recentMs).toBeCloseTo((0.8 * 500 + 0.2 * 1_000) * 0.8 + 0.2 * 100, 9);
      });
    });

    describe('control checks', () => {
      const control = (
        platformId: string,
        identity: string,
        checkedAt: number,
        drift = false,
      ): ControlRecord => ({
        platformId,
        identity,
        username: 'qzx81kf0ab3c9d2e',
        status: drift ? 'hit' : 'miss',
        rule: drift ? 'exists: status 200' : 'missing: status 404',
        answer: {
          httpStatus: drift ? 200 : 404,
          finalUrl: `https://${platformId}.example/q`,
          bodyLength: 812,
          title: 'Not found',
        },
        drift,
        checkedAt,
      });

      it('has no control before one is put', async () => {
        expect(await store.getControl('github', 'default')).toBeUndefined();
        expect(await store.listControls()).toEqual([]);
      });

      it('keeps the latest control per platform and identity, as put', async () => {
        await store.putControl(control('github', 'default', T0));
        await store.putControl(control('github', 'addr:10.0.0.2', T0 + 1, true));
        await store.putControl(control('gitlab', 'default', T0 + 2));
        await store.putControl(control('github', 'default', T0 + MINUTE, true));
        expect(await store.getControl('github', 'default')).toEqual(
          control('github', 'default', T0 + MINUTE, true),
        );
        expect(await store.getControl('github', 'addr:10.0.0.2')).toEqual(
          control('github', 'addr:10.0.0.2', T0 + 1, true),
        );
        expect(await store.getControl('gitlab', 'addr:10.0.0.2')).toBeUndefined();
        const listed = await store.listControls();
        expect(listed.map((r) => [r.platformId, r.identity, r.checkedAt])).toEqual([
          ['github', 'addr:10.0.0.2', T0 + 1],
          ['github', 'default', T0 + MINUTE],
          ['gitlab', 'default', T0 + 2],
        ]);
      });

      it('gives a lease to one claimant until it expires', async () => {
        const now = Date.now();
        expect(await store.claimLease('control:github:default:1', 150, now)).toBe(true);
        expect(await store.claimLease('control:github:default:1', 150, now + 1)).toBe(false);
        expect(await store.claimLease('control:gitlab:default:1', 150, now + 1)).toBe(true);
        // Past its term (Redis times it with its own clock, so wait for real).
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(await store.claimLease('control:github:default:1', 150, Date.now())).toBe(true);
      });
    });

    describe('platform health from the scheduled self-check', () => {
      it('keeps the latest verdict of each platform', async () => {
        expect(await store.listPlatformHealth()).toEqual({});
        await store.putPlatformHealth('github', { verdict: 'healthy', validatedAt: T0 });
        await store.putPlatformHealth('bravo', {
          verdict: 'broken',
          reason: 'unclaimed "x": expected miss, got hit',
          validatedAt: T0,
        });
        await store.putPlatformHealth('github', {
          verdict: 'blocked',
          reason: 'waf',
          validatedAt: T0 + MINUTE,
        });
        expect(await store.listPlatformHealth()).toEqual({
          bravo: { verdict: 'broken', reason: 'unclaimed "x": expected miss, got hit', validatedAt: T0 },
          github: { verdict: 'blocked', reason: 'waf', validatedAt: T0 + MINUTE },
        });
      });
    });

    describe('lifecycle', () => {
      it('answers a ping', async () => {
        expect(await store.ping()).toBe(true);
      });

      it('closes, more than once without failing, and then no longer answers', async () => {
        await store.close();
        await expect(store.close()).resolves.toBeUndefined();
        expect(await store.ping()).toBe(false);
      });
    });
  });
}
