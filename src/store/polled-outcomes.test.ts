import { describe, expect, it } from 'vitest';
import type { Outcome } from '../engine/verdict/outcome.js';
import { type OutcomeRow, PolledOutcomes, PolledSearch } from './polled-outcomes.js';

const HIT = 0;
const MISS = 1;

/** A row whose bytes name its platform and seq, so what is listed shows which row it came from. */
const row = (seq: number, platform: number, status: number): OutcomeRow => ({
  seq,
  platform,
  status,
  outcome: Buffer.from([platform, seq]),
});

function counting() {
  const calls: number[][] = [];
  const decode = (b: Uint8Array): Outcome => {
    calls.push([...b]);
    return { platformId: `p${b[0]}`, seqStored: b[1] } as unknown as Outcome;
  };
  return { calls, decode };
}

/** The bytes `row` stored for the platform at that seq, read again. */
const reread = (platform: number, seq: number) => Buffer.from([platform, seq]);

const listed = (search: PolledSearch, decode: (b: Uint8Array) => Outcome, statuses?: number[]) =>
  search.list(statuses && new Set(statuses), decode, reread)!.map((s) => [s.seq, s.outcome.platformId]);

describe('PolledSearch', () => {
  it('lists the rows taken in seq order, only the statuses asked, each decoded once, frozen and shared', () => {
    const search = new PolledSearch('s1', 'alice');
    const { calls, decode } = counting();
    search.take([row(1, 7, MISS), row(2, 8, HIT), row(3, 9, HIT)]);
    expect(search.lastSeq).toBe(3);
    expect(listed(search, decode, [HIT])).toEqual([
      [2, 'p8'],
      [3, 'p9'],
    ]);
    // The miss is decoded only when a poll lists it.
    expect(calls).toEqual([
      [8, 2],
      [9, 3],
    ]);
    // The miss's bytes were not kept: read again by platform and seq when a poll lists it.
    const reads: number[][] = [];
    const read = (platform: number, seq: number) => {
      reads.push([platform, seq]);
      return Buffer.from([platform, seq]);
    };
    const first = search.list(undefined, decode, read)!;
    const again = search.list(undefined, decode, read)!;
    expect(first.map((s) => [s.seq, s.outcome.platformId])).toEqual([
      [1, 'p7'],
      [2, 'p8'],
      [3, 'p9'],
    ]);
    expect(reads).toEqual([[7, 1]]);
    expect(again[1]!.outcome).toBe(first[1]!.outcome);
    expect(Object.isFrozen(first[0]!.outcome)).toBe(true);
    expect(calls).toHaveLength(3);
  });

  it('lists nothing when an outcome to read again is not stored as kept', () => {
    const search = new PolledSearch('s1', 'alice');
    const { decode } = counting();
    search.take([row(1, 7, MISS), row(2, 8, HIT)]);
    expect(listed(search, decode, [HIT])).toEqual([[2, 'p8']]);
    expect(search.list(undefined, decode, () => undefined)).toBeUndefined();
  });

  it('takes a platform’s later row in place of its earlier one: a hit become a miss leaves the hits', () => {
    const search = new PolledSearch('s1', 'alice');
    const { decode } = counting();
    search.take([row(1, 7, HIT), row(2, 8, HIT), row(3, 9, MISS)]);
    expect(listed(search, decode, [HIT])).toEqual([
      [1, 'p7'],
      [2, 'p8'],
    ]);
    // Platform 7 answered again, a miss now; platform 9 a hit now: both move to their new seqs.
    search.take([row(4, 7, MISS), row(5, 9, HIT), row(6, 10, HIT)]);
    expect(listed(search, decode, [HIT])).toEqual([
      [2, 'p8'],
      [5, 'p9'],
      [6, 'p10'],
    ]);
    expect(listed(search, decode)).toEqual([
      [2, 'p8'],
      [4, 'p7'],
      [5, 'p9'],
      [6, 'p10'],
    ]);
    expect(search.lastSeq).toBe(6);
  });

  it('matches the rows stored only when as many of each status are kept', () => {
    const search = new PolledSearch('s1', 'alice');
    search.take([row(1, 7, HIT), row(2, 8, MISS), row(3, 9, MISS)]);
    expect(search.matches([1, 2])).toBe(true);
    expect(search.matches([1, 2, 0])).toBe(true);
    search.take([row(4, 7, MISS)]);
    expect(search.matches([1, 2])).toBe(false);
    expect(search.matches([0, 3])).toBe(true);
    expect(search.matches([0, 3, 1])).toBe(false);
  });
});

describe('PolledOutcomes', () => {
  it('keeps a search’s rows from poll to poll, and starts over for another id, username or fewer seqs', () => {
    const polled = new PolledOutcomes();
    const kept = polled.of(1, 's1', 'alice', 3);
    kept.take([row(3, 7, HIT)]);
    expect(polled.of(1, 's1', 'alice', 3)).toBe(kept);
    expect(polled.of(1, 's1', 'alice', 5)).toBe(kept);
    const other = polled.of(1, 's2', 'alice', 5);
    expect(other).not.toBe(kept);
    other.take([row(3, 7, HIT)]);
    expect(polled.of(1, 's2', 'Alice', 5).lastSeq).toBe(0);
    const again = polled.of(1, 's2', 'Alice', 5);
    again.take([row(3, 7, HIT)]);
    // The search gave fewer seqs than were seen: not the rows kept.
    expect(polled.of(1, 's2', 'Alice', 2).lastSeq).toBe(0);
  });

  it('starts a search over on restart, and forgets it', () => {
    const polled = new PolledOutcomes();
    polled.of(1, 's1', 'alice', 3).take([row(3, 7, HIT)]);
    expect(polled.restart(1, 's1', 'alice').lastSeq).toBe(0);
    expect(polled.of(1, 's1', 'alice', 3).lastSeq).toBe(0);
    polled.of(1, 's1', 'alice', 3).take([row(3, 7, HIT)]);
    polled.forget(1);
    expect(polled.of(1, 's1', 'alice', 3).lastSeq).toBe(0);
  });

  it('keeps the searches polled last, as many as it keeps, however many are polled in turn', () => {
    const polled = new PolledOutcomes(3);
    const poll = (key: number) => polled.of(key, `s${key}`, 'a', 9);
    for (const key of [1, 2, 3]) poll(key).take([row(1, key, HIT)]);
    // Three searches polled round and round: each keeps its rows.
    for (let round = 0; round < 3; round++) for (const key of [1, 2, 3]) expect(poll(key).lastSeq).toBe(1);
    // A fourth: the one polled longest ago goes.
    poll(4);
    expect(poll(2).lastSeq).toBe(1);
    expect(poll(1).lastSeq).toBe(0);
  });
});
