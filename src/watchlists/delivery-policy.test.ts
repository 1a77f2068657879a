import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../store/watchlists.js';
import {
  afterAttempt,
  backoffMs,
  INTERRUPTED_ERROR,
  resumeDelivery,
  startAttempt,
} from './delivery-policy.js';

const policy = { baseMs: 1_000, maxMs: 8_000, retryForMs: 60_000 };
const pending: DeliveryRecord = {
  id: 'd1',
  watchlistId: 'w1',
  eventId: 'evt_1',
  eventType: 'watchlist.changes',
  body: '{}',
  url: 'https://hooks.example/x',
  state: 'pending',
  createdAt: 0,
  attempts: [],
  nextAttemptAt: 0,
};

describe('delivery policy', () => {
  it('doubles the wait per failure up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, policy))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });

  it('marks a 2xx delivered, and schedules a failure for later', () => {
    const ok = afterAttempt(pending, { at: 10, status: 204, durationMs: 5 }, policy);
    expect(ok).toMatchObject({ state: 'delivered', deliveredAt: 10 });
    expect(ok.nextAttemptAt).toBeUndefined();
    const failed = afterAttempt(pending, { at: 10, status: 500, error: 'HTTP 500', durationMs: 5 }, policy);
    expect(failed).toMatchObject({ state: 'pending', nextAttemptAt: 1_015 });
    expect(failed.attempts).toHaveLength(1);
  });

  it('gives up once the next attempt would fall after the retry period', () => {
    const late = afterAttempt(pending, { at: 59_500, error: 'timeout', durationMs: 0 }, policy);
    expect(late.state).toBe('failed');
  });

  it('records an attempt in flight before it is sent, due again only when its lease ends, then replaces it', () => {
    const started = startAttempt(pending, 10, 5_010);
    expect(started).toMatchObject({ state: 'pending', nextAttemptAt: 5_010 });
    expect(started.attempts).toEqual([{ at: 10, phase: 'in_flight', durationMs: 0 }]);
    const done = afterAttempt(started, { at: 11, status: 200, durationMs: 4 }, policy);
    expect(done.attempts).toEqual([{ at: 11, status: 200, durationMs: 4 }]);
    expect(done.state).toBe('delivered');
  });

  it('marks an attempt a dead process left in flight as interrupted, sends once more, and fails on the second', () => {
    expect(resumeDelivery(pending)).toBe(pending);
    const first = resumeDelivery(startAttempt(pending, 10, 5_010));
    expect(first.state).toBe('pending');
    expect(first.attempts).toEqual([
      { at: 10, phase: 'interrupted', error: INTERRUPTED_ERROR, durationMs: 0 },
    ]);
    // Sent again; that one is cut short by a crash too: the delivery is failed, not sent a third time.
    const second = resumeDelivery(startAttempt(first, 6_000, 11_000));
    expect(second.state).toBe('failed');
    expect(second.nextAttemptAt).toBeUndefined();
    expect(second.attempts.map((a) => a.phase)).toEqual(['interrupted', 'interrupted']);
  });
});
