/**
 * The rules every WatchlistStore keeps (src/store/watchlists.ts), as one suite
 * run against each backend: `describeWatchlistStoreContract` gets a fresh store per test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cancelledDelivery,
  type DeliveryRecord,
  type WatchChange,
  type Watchlist,
  type WatchlistStore,
} from '../src/store/watchlists.js';
import { startAttempt } from '../src/watchlists/delivery-policy.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const HOUR = 3_600_000;

export function watchlist(id: string, overrides: Partial<Watchlist> = {}): Watchlist {
  return {
    id,
    owner: 'key:k1',
    createdAt: T0,
    updatedAt: T0,
    spec: {
      names: ['alice', 'bob'],
      categories: ['social'],
      intervalMs: HOUR,
      webhookUrl: 'https://hooks.example/w',
      webhookSecret: 'whsec_0123456789abcdef',
      notify: 'changes',
    },
    state: { nextRunAt: T0, runs: 0, baseline: {} },
    ...overrides,
  };
}

function delivery(id: string, watchlistId: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id,
    watchlistId,
    eventId: `evt_${id}`,
    eventType: 'watchlist.changes',
    body: `{"id":"evt_${id}"}`,
    url: 'https://hooks.example/w',
    state: 'pending',
    createdAt: T0,
    attempts: [],
    nextAttemptAt: T0,
    ...overrides,
  };
}

function change(username: string, platformId: string): Omit<WatchChange, 'seq'> {
  return {
    watchlistId: 'w1',
    runId: 'r1',
    at: T0,
    username,
    platformId,
    platform: platformId.toUpperCase(),
    url: `https://${platformId}.test/u/${username}`,
    kind: 'new_hit',
    from: 'miss',
    to: 'hit',
  };
}

export function describeWatchlistStoreContract(
  name: string,
  open: () => { store: WatchlistStore; close: () => Promise<void> },
): void {
  describe(`WatchlistStore contract: ${name}`, () => {
    let store: WatchlistStore;
    let close: () => Promise<void>;
    beforeEach(() => {
      ({ store, close } = open());
    });
    afterEach(async () => {
      await close();
    });

    it('creates, reads, lists by owner, updates and deletes watchlists', async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createWatchlist(watchlist('w2', { createdAt: T0 + 1 }));
      await store.createWatchlist(watchlist('w3', { owner: 'key:k2' }));
      await expect(store.createWatchlist(watchlist('w1'))).rejects.toMatchObject({ code: 'duplicate_id' });
      expect(await store.getWatchlist('w1')).toEqual(watchlist('w1'));
      expect(await store.getWatchlist('nope')).toBeUndefined();
      expect((await store.listWatchlists('key:k1')).map((w) => w.id)).toEqual(['w1', 'w2']);
      expect((await store.listWatchlists('key:k2')).map((w) => w.id)).toEqual(['w3']);

      const spec = { ...watchlist('w1').spec, names: ['carol'] };
      expect(await store.updateWatchlistSpec('w1', spec, T0 + 5)).toBe(true);
      expect(await store.updateWatchlistSpec('nope', spec, T0 + 5)).toBe(false);
      expect(await store.getWatchlist('nope')).toBeUndefined();
      expect(await store.getWatchlist('w1')).toMatchObject({ spec, updatedAt: T0 + 5 });

      expect(await store.deleteWatchlist('w1')).toBe(true);
      expect(await store.deleteWatchlist('w1')).toBe(false);
      expect(await store.getWatchlist('w1')).toBeUndefined();
      expect((await store.listWatchlists('key:k1')).map((w) => w.id)).toEqual(['w2']);
    });

    it('claims a due watchlist once per lease, oldest due first, and only when due', async () => {
      await store.createWatchlist(
        watchlist('late', { state: { nextRunAt: T0 + HOUR, runs: 0, baseline: {} } }),
      );
      await store.createWatchlist(watchlist('due', { state: { nextRunAt: T0 - 10, runs: 0, baseline: {} } }));
      const first = await store.claimDueWatchlist(T0, 1_000);
      expect(first?.value.id).toBe('due');
      // Leased: not due again until the lease ends; the other one is not due yet.
      expect(await store.claimDueWatchlist(T0 + 999, 1_000)).toBeUndefined();
      const again = await store.claimDueWatchlist(T0 + 1_000, 1_000);
      expect(again?.value.id).toBe('due');
      expect(again!.token).not.toBe(first!.token);
      // The first holder's lease is stale now: its save is refused.
      const state = { ...first!.value.state, runs: 1 };
      expect(await store.saveWatchlistState('due', first!.token, state, T0 + HOUR)).toBe(false);
      expect(await store.saveWatchlistState('due', again!.token, state, T0 + 2 * HOUR)).toBe(true);
      expect((await store.getWatchlist('due'))?.state.runs).toBe(1);
      expect((await store.claimDueWatchlist(T0 + HOUR, 1_000))?.value.id).toBe('late');
    });

    it('defers a claimed watchlist under its lease, leaving its state as it is', async () => {
      await store.createWatchlist(watchlist('w1'));
      const first = (await store.claimDueWatchlist(T0, 1_000))!;
      const run = { id: 'r1', startedAt: T0, searches: { alice: 's1' }, skipped: {} };
      expect(await store.saveWatchlistState('w1', first.token, { ...first.value.state, run }, T0 + 50)).toBe(
        true,
      );
      expect(await store.deferWatchlist('w1', first.token, T0 + 500)).toBe(true);
      // Due at the deferred time, not at the saved one, nor at the lease's end.
      expect(await store.claimDueWatchlist(T0 + 499, 1_000)).toBeUndefined();
      const second = (await store.claimDueWatchlist(T0 + 500, 1_000))!;
      expect(second.value).toEqual({ ...watchlist('w1'), state: { ...watchlist('w1').state, run } });
      // A stale lease defers nothing.
      expect(await store.deferWatchlist('w1', first.token, T0)).toBe(false);
      expect(await store.claimDueWatchlist(T0 + 600, 1_000)).toBeUndefined();
      expect(await store.deferWatchlist('nope', second.token, T0)).toBe(false);
    });

    it('never gives one due watchlist to two claims at once', async () => {
      await store.createWatchlist(watchlist('w1'));
      const claims = await Promise.all(Array.from({ length: 8 }, () => store.claimDueWatchlist(T0, 60_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('runs a watchlist asked for now, unless a run is under way', async () => {
      await store.createWatchlist(
        watchlist('w1', { state: { nextRunAt: T0 + HOUR, runs: 0, baseline: {} } }),
      );
      expect(await store.claimDueWatchlist(T0, 1_000)).toBeUndefined();
      expect(await store.requestRun('w1', T0)).toBe('queued');
      expect((await store.getWatchlist('w1'))?.state.nextRunAt).toBe(T0);
      const claimed = await store.claimDueWatchlist(T0, 1_000);
      expect(claimed?.value.id).toBe('w1');
      const run = { id: 'r1', startedAt: T0, searches: { alice: 's1' }, skipped: {} };
      await store.saveWatchlistState('w1', claimed!.token, { ...claimed!.value.state, run }, T0 + 100);
      expect(await store.requestRun('w1', T0)).toBe('running');
      expect(await store.requestRun('nope', T0)).toBe('not_found');
    });

    it('finishes a run with its changes and deliveries, all or nothing', async () => {
      await store.createWatchlist(watchlist('w1'));
      const claimed = (await store.claimDueWatchlist(T0, 1_000))!;
      const state = {
        nextRunAt: T0 + HOUR,
        runs: 1,
        baseline: { alice: { a: { last: 'hit' as const, answer: 'hit' as const } } },
      };
      const finish = {
        state,
        dueAt: T0 + HOUR,
        changes: [change('alice', 'a'), change('bob', 'b')],
        deliveries: [delivery('d1', 'w1')],
      };
      expect(await store.finishWatchlistRun('w1', claimed.token + 1, finish)).toBe(false);
      expect(await store.listWatchChanges('w1')).toEqual([]);
      expect(await store.listDeliveries('w1')).toEqual([]);
      expect(await store.finishWatchlistRun('w1', claimed.token, finish)).toBe(true);
      expect((await store.getWatchlist('w1'))?.state).toEqual(state);
      const changes = await store.listWatchChanges('w1');
      expect(changes.map((c) => [c.seq, c.username])).toEqual([
        [1, 'alice'],
        [2, 'bob'],
      ]);
      expect(changes[0]).toEqual({ seq: 1, ...change('alice', 'a') });
      expect((await store.listWatchChanges('w1', { afterSeq: 1 })).map((c) => c.seq)).toEqual([2]);
      expect((await store.listWatchChanges('w1', { limit: 1 })).map((c) => c.seq)).toEqual([1]);
      expect(await store.listDeliveries('w1')).toEqual([delivery('d1', 'w1')]);
      // Numbering goes on across runs.
      const next = (await store.claimDueWatchlist(T0 + HOUR, 1_000))!;
      await store.finishWatchlistRun('w1', next.token, {
        ...finish,
        changes: [change('carol', 'c')],
        deliveries: [],
      });
      expect((await store.listWatchChanges('w1', { afterSeq: 2 })).map((c) => [c.seq, c.username])).toEqual([
        [3, 'carol'],
      ]);
    });

    it('claims a pending delivery when due, saves it under its lease, and forgets it once done', async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createDelivery(delivery('d1', 'w1', { nextAttemptAt: T0 + 100 }));
      await store.createDelivery(
        delivery('d2', 'w1', { createdAt: T0 + 1, state: 'delivered', nextAttemptAt: undefined }),
      );
      await expect(store.createDelivery(delivery('d1', 'w1'))).rejects.toMatchObject({
        code: 'duplicate_id',
      });
      expect(await store.claimDueDelivery(T0, 1_000)).toBeUndefined();
      const claimed = (await store.claimDueDelivery(T0 + 100, 1_000))!;
      expect(claimed.value.id).toBe('d1');
      expect(await store.claimDueDelivery(T0 + 500, 1_000)).toBeUndefined();
      const retried = {
        ...claimed.value,
        attempts: [{ at: T0 + 100, status: 500, error: 'HTTP 500', durationMs: 3 }],
        nextAttemptAt: T0 + 2_000,
      };
      expect(await store.saveDelivery(retried, claimed.token)).toBe(true);
      expect(await store.saveDelivery(retried, claimed.token + 1)).toBe(false);
      expect(await store.getDelivery('d1')).toEqual(retried);
      expect(await store.claimDueDelivery(T0 + 1_999, 1_000)).toBeUndefined();
      const second = (await store.claimDueDelivery(T0 + 2_000, 1_000))!;
      const done: DeliveryRecord = {
        ...retried,
        state: 'delivered',
        deliveredAt: T0 + 2_000,
        nextAttemptAt: undefined,
      };
      expect(await store.saveDelivery(JSON.parse(JSON.stringify(done)), second.token)).toBe(true);
      expect(await store.claimDueDelivery(T0 + 100 * HOUR, 1_000)).toBeUndefined();
      expect((await store.listDeliveries('w1')).map((d) => [d.id, d.state])).toEqual([
        ['d2', 'delivered'],
        ['d1', 'delivered'],
      ]);
      expect((await store.listDeliveries('w1', 1)).map((d) => d.id)).toEqual(['d2']);
    });

    it('claims due deliveries of owners not skipped, and says whose each is', async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createWatchlist(watchlist('w2', { owner: 'key:k2' }));
      await store.createDelivery(delivery('d1', 'w1', { nextAttemptAt: T0 }));
      await store.createDelivery(delivery('d2', 'w1', { nextAttemptAt: T0 + 1 }));
      await store.createDelivery(delivery('d3', 'w2', { nextAttemptAt: T0 + 2 }));
      // k1's deliveries are due first, but k1 is skipped: k2's is claimed.
      const other = (await store.claimDueDelivery(T0 + 10, 1_000, ['key:k1']))!;
      expect([other.value.id, other.owner]).toEqual(['d3', 'key:k2']);
      expect(await store.claimDueDelivery(T0 + 10, 1_000, ['key:k1', 'key:k2'])).toBeUndefined();
      const first = (await store.claimDueDelivery(T0 + 10, 1_000))!;
      expect([first.value.id, first.owner]).toEqual(['d1', 'key:k1']);
    });

    it('keeps an attempt recorded before it is sent: a claim after a crash finds it in flight', async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createDelivery(delivery('d1', 'w1'));
      const claimed = (await store.claimDueDelivery(T0, 1_000))!;
      const started = startAttempt(claimed.value, T0 + 5, T0 + 1_005);
      expect(await store.saveDelivery(started, claimed.token)).toBe(true);
      // The process dies here. Nobody takes it while the attempt may still be under way...
      expect(await store.claimDueDelivery(T0 + 1_004, 1_000)).toBeUndefined();
      // ...then the next claim sees the attempt it left.
      const next = (await store.claimDueDelivery(T0 + 1_005, 1_000))!;
      expect(next.value.attempts).toEqual([{ at: T0 + 5, phase: 'in_flight', durationMs: 0 }]);
      expect(await store.saveDelivery(started, claimed.token)).toBe(false);
    });

    it("trims an owner's ended deliveries past the newest kept and past the retention, never pending ones", async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createWatchlist(watchlist('w2', { createdAt: T0 + 1 }));
      await store.createWatchlist(watchlist('w3', { owner: 'key:k2' }));
      const ended = { state: 'delivered' as const, nextAttemptAt: undefined, deliveredAt: T0 };
      // Oldest first: d0 (pending), d1..d4 ended, over two watchlists of k1; e1 of k2.
      await store.createDelivery(delivery('d0', 'w1', { createdAt: T0 }));
      for (let i = 1; i <= 4; i++)
        await store.createDelivery(
          delivery(`d${i}`, i % 2 ? 'w1' : 'w2', { ...ended, createdAt: T0 + i * HOUR }),
        );
      await store.createDelivery(delivery('e1', 'w3', { ...ended, createdAt: T0 }));
      const ids = async () =>
        [...(await store.listDeliveries('w1')), ...(await store.listDeliveries('w2'))]
          .map((d) => d.id)
          .sort();

      // Older than the retention: d1 goes; d0 is pending and stays.
      expect(await store.trimDeliveries('key:k1', { keep: 100, createdBefore: T0 + 2 * HOUR })).toBe(4);
      expect(await ids()).toEqual(['d0', 'd2', 'd3', 'd4']);
      // Past the newest 2: d2 goes (d0 is past them too, but pending).
      expect(await store.trimDeliveries('key:k1', { keep: 2, createdBefore: 0 })).toBe(3);
      expect(await ids()).toEqual(['d0', 'd3', 'd4']);
      expect(await store.trimDeliveries('key:k1', { keep: 0, createdBefore: 0 })).toBe(1);
      expect(await ids()).toEqual(['d0']);
      // Another key's deliveries are its own.
      expect((await store.listDeliveries('w3')).map((d) => d.id)).toEqual(['e1']);
      expect(await store.trimDeliveries('key:nobody', { keep: 0, createdBefore: T0 + 100 * HOUR })).toBe(0);
    });

    it("stops a revoked owner's watchlists and cancels its pending deliveries, leaving other keys alone", async () => {
      await store.createWatchlist(watchlist('w1'));
      await store.createWatchlist(watchlist('w2', { createdAt: T0 + 1 }));
      await store.createWatchlist(watchlist('w3', { owner: 'key:k2' }));
      await store.createDelivery(delivery('d1', 'w1'));
      await store.createDelivery(delivery('d2', 'w1', { state: 'delivered', nextAttemptAt: undefined }));
      await store.createDelivery(delivery('d3', 'w3'));
      // A run of w1 and the delivery d1 under way when the key is revoked.
      const running = (await store.claimDueWatchlist(T0, 1_000))!;
      expect(running.value.id).toBe('w1');
      const sending = (await store.claimDueDelivery(T0, 1_000, ['key:k2']))!;
      expect(sending.value.id).toBe('d1');

      expect(await store.stopOwner('key:k1')).toEqual({ watchlists: 2, deliveries: 1 });
      expect(await store.getDelivery('d1')).toEqual(cancelledDelivery(delivery('d1', 'w1')));
      expect((await store.getDelivery('d2'))?.state).toBe('delivered');
      // What was under way cannot save any more.
      expect(await store.saveWatchlistState('w1', running.token, running.value.state, T0)).toBe(false);
      expect(await store.deferWatchlist('w1', running.token, T0)).toBe(false);
      expect(await store.saveDelivery(sending.value, sending.token)).toBe(false);
      // Nothing of k1 is due again, ever; k2's work goes on.
      const later = T0 + 1_000 * HOUR;
      expect((await store.claimDueWatchlist(later, 1_000))?.value.id).toBe('w3');
      expect(await store.claimDueWatchlist(later, 1_000)).toBeUndefined();
      expect((await store.claimDueDelivery(later, 1_000))?.value.id).toBe('d3');
      expect(await store.claimDueDelivery(later, 1_000)).toBeUndefined();
      expect(await store.getWatchlist('w2')).toBeDefined();
    });

    it('deletes the changes and deliveries of a deleted watchlist, pending ones included', async () => {
      await store.createWatchlist(watchlist('w1'));
      const claimed = (await store.claimDueWatchlist(T0, 1_000))!;
      await store.finishWatchlistRun('w1', claimed.token, {
        state: { nextRunAt: T0 + HOUR, runs: 1, baseline: {} },
        dueAt: T0 + HOUR,
        changes: [change('alice', 'a')],
        deliveries: [delivery('d1', 'w1')],
      });
      await store.deleteWatchlist('w1');
      expect(await store.getDelivery('d1')).toBeUndefined();
      expect(await store.listWatchChanges('w1')).toEqual([]);
      expect(await store.claimDueDelivery(T0 + 100 * HOUR, 1_000)).toBeUndefined();
      expect(await store.claimDueWatchlist(T0 + 100 * HOUR, 1_000)).toBeUndefined();
    });
  });
}
