import { describe, expect, it } from 'vitest';
import {
  CONFLICT_RETRY,
  CONFLICT_SQLSTATES,
  conflictPauseMs,
  isConflict,
  retryOnConflict,
} from './postgres-retry.js';

function pgError(code: string): Error {
  return Object.assign(new Error(`sqlstate ${code}`), { code });
}

describe('isConflict', () => {
  it('is a deadlock or a serialization failure, nothing else', () => {
    expect(CONFLICT_SQLSTATES).toEqual(['40P01', '40001']);
    expect(isConflict(pgError('40P01'))).toBe(true);
    expect(isConflict(pgError('40001'))).toBe(true);
    // A unique violation, a statement timeout, a lost connection, a constraint: not run again here.
    for (const code of ['23505', '57014', '08006', '40002', '40003', '23503'])
      expect(isConflict(pgError(code))).toBe(false);
    expect(isConflict(new Error('deadlock detected'))).toBe(false);
    expect(isConflict(undefined)).toBe(false);
    expect(isConflict(null)).toBe(false);
  });
});

describe('conflictPauseMs', () => {
  it('doubles from the base, jittered to [50%, 100%], never over the cap', () => {
    expect(conflictPauseMs(1, 0)).toBe(CONFLICT_RETRY.baseDelayMs / 2);
    expect(conflictPauseMs(1, 0.999_999)).toBe(CONFLICT_RETRY.baseDelayMs);
    expect(conflictPauseMs(2, 0.999_999)).toBe(CONFLICT_RETRY.baseDelayMs * 2);
    expect(conflictPauseMs(30, 0.999_999)).toBe(CONFLICT_RETRY.maxDelayMs);
  });
});

describe('retryOnConflict', () => {
  const noPause = { sleep: async () => {}, random: () => 0.5 };

  it('runs the work again after a deadlock or a serialization failure, and returns what it gave', async () => {
    for (const code of CONFLICT_SQLSTATES) {
      const attempts: number[] = [];
      const result = await retryOnConflict(async (attempt) => {
        attempts.push(attempt);
        if (attempt === 1) throw pgError(code);
        return 'committed';
      }, noPause);
      expect(result).toBe('committed');
      expect(attempts).toEqual([1, 2]);
    }
  });

  it('gives up after CONFLICT_RETRY.attempts, with the last error, having paused between attempts', async () => {
    const pauses: number[] = [];
    let calls = 0;
    const last = pgError('40001');
    const ran = retryOnConflict(
      async (attempt) => {
        calls++;
        throw attempt === CONFLICT_RETRY.attempts ? last : pgError('40P01');
      },
      { sleep: async (ms) => pauses.push(ms), random: () => 0 },
    );
    await expect(ran).rejects.toBe(last);
    expect(CONFLICT_RETRY.attempts).toBe(3);
    expect(calls).toBe(3);
    expect(pauses).toEqual([CONFLICT_RETRY.baseDelayMs / 2, CONFLICT_RETRY.baseDelayMs]);
  });

  it('never runs again work that failed otherwise', async () => {
    for (const error of [pgError('23505'), pgError('57014'), new Error('bug')]) {
      let calls = 0;
      await expect(
        retryOnConflict(async () => {
          calls++;
          throw error;
        }, noPause),
      ).rejects.toBe(error);
      expect(calls).toBe(1);
    }
  });
});
