import { describe, expect, it } from 'vitest';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import { compareRun } from './compare-run.js';

function outcome(platformId: string, status: OutcomeStatus): Outcome {
  const base = {
    platform: platformId.toUpperCase(),
    platformId,
    category: 'social' as const,
    url: `https://${platformId}.test/u/alice`,
  };
  const evidence = { rule: 'r', attempts: 1 };
  if (status === 'unknown') return { ...base, status, reason: 'waf', responseTime: 1, evidence };
  if (status === 'error') return { ...base, status, reason: 'timeout', responseTime: 1, evidence };
  if (status === 'invalid') return { ...base, status, reason: 'username_rule', responseTime: 0, evidence };
  return { ...base, status, responseTime: 1, evidence };
}

const run = (statuses: Record<string, OutcomeStatus>, name = 'alice') =>
  new Map([[name, Object.entries(statuses).map(([id, s]) => outcome(id, s))]]);

describe('compareRun', () => {
  it("reports nothing on a name's first run, and sets its baseline", () => {
    const first = compareRun({}, run({ a: 'hit', b: 'miss', c: 'error' }));
    expect(first.changes).toEqual([]);
    expect(first.baseline.alice).toEqual({
      a: { last: 'hit', answer: 'hit' },
      b: { last: 'miss', answer: 'miss' },
      c: { last: 'error' },
    });
  });

  it('reports a miss that became a hit as new_hit and a hit that became a miss as gone', () => {
    const { baseline } = compareRun({}, run({ a: 'miss', b: 'hit', c: 'hit' }));
    const second = compareRun(baseline, run({ a: 'hit', b: 'miss', c: 'hit' }));
    expect(second.changes.map((c) => [c.platformId, c.kind, c.from, c.to])).toEqual([
      ['a', 'new_hit', 'miss', 'hit'],
      ['b', 'gone', 'hit', 'miss'],
    ]);
    expect(second.changes[0]).toMatchObject({
      username: 'alice',
      platform: 'A',
      url: 'https://a.test/u/alice',
    });
  });

  it('never counts a non-answer as gone, and keeps the last answer across it', () => {
    const { baseline: b1 } = compareRun({}, run({ a: 'hit', b: 'hit' }));
    const r2 = compareRun(b1, run({ a: 'error', b: 'unknown' }));
    expect(r2.changes).toEqual([]);
    // a comes back as a hit (changed: no answer before), b as a miss: gone against its last answer.
    const r3 = compareRun(r2.baseline, run({ a: 'hit', b: 'miss' }));
    expect(r3.changes.map((c) => [c.platformId, c.kind, c.from, c.to])).toEqual([
      ['a', 'changed', 'error', 'hit'],
      ['b', 'gone', 'hit', 'miss'],
    ]);
  });

  it('reports a platform that answers for the first time as changed', () => {
    const { baseline } = compareRun({}, run({ a: 'unknown' }));
    expect(compareRun(baseline, run({ a: 'miss' })).changes.map((c) => c.kind)).toEqual(['changed']);
  });

  it('reports nothing when nothing changed, and keeps names not searched in this run', () => {
    const { baseline } = compareRun({}, new Map([...run({ a: 'hit' }), ...run({ a: 'miss' }, 'bob')]));
    const again = compareRun(baseline, run({ a: 'hit' }));
    expect(again.changes).toEqual([]);
    expect(again.baseline.bob).toEqual(baseline.bob);
  });
});
