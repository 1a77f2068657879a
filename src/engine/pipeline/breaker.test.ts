import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import { outcomeOf } from '../../../test/support/outcome.js';
import { OriginBreaker } from '../origin-breaker.js';
import { guardSend, refuseOpen } from './breaker.js';
import type { Dispatch, Sent } from './dispatch.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;
const check = checkOf(platform!);

function breakerAt(clock: { now: number }) {
  return new OriginBreaker({ threshold: 2, cooldownMs: 10_000, now: () => clock.now });
}

const timedOut: Sent = { outcome: outcomeOf('alpha', 'error', { reason: 'timeout' }) };

describe('the breaker around a check', () => {
  it('records each sent check as it ended, after the rest of the check', async () => {
    const clock = { now: 0 };
    const breaker = breakerAt(clock);
    const order: string[] = [];
    const next: Dispatch = async () => {
      order.push('sent');
      return timedOut;
    };
    const guarded = guardSend(breaker)(next);
    await guarded(check);
    expect(breaker.refusal(check.request.origin)).toBeUndefined();
    await guarded(check);
    order.push('recorded');
    expect(order).toEqual(['sent', 'sent', 'recorded']);
    expect(breaker.refusal(check.request.origin)).toMatchObject({ timeouts: 2, retryInMs: 10_000 });
  });

  it('refuses an open origin before booking, saying when it is tried again, and sends nothing', async () => {
    const clock = { now: 0 };
    const breaker = breakerAt(clock);
    for (let i = 0; i < 2; i++) breaker.record(check.request.origin, 'timeout');
    let sent = 0;
    const next: Dispatch = async () => {
      sent++;
      return timedOut;
    };
    clock.now = 2_500;
    const { outcome } = await refuseOpen(breaker)(next)(check);
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({ status: 'error', reason: 'timeout' });
    expect(outcome.evidence.rule).toBe(
      'not sent: the last 2 checks to this origin timed out; it is tried again in 8 s',
    );
  });

  it('lets one probe through after the cooldown, refusing the others until it ends', async () => {
    const clock = { now: 0 };
    const breaker = breakerAt(clock);
    for (let i = 0; i < 2; i++) breaker.record(check.request.origin, 'timeout');
    clock.now = 10_000;
    let release: (sent: Sent) => void = () => {};
    const probe = guardSend(breaker)(() => new Promise<Sent>((resolve) => (release = resolve)))(check);
    const other = await guardSend(breaker)(async () => timedOut)(check);
    expect(other.outcome.evidence.rule).toMatch(/^not sent: the last 2 checks/);
    release({ outcome: outcomeOf('alpha', 'miss') });
    expect((await probe).outcome.status).toBe('miss');
    expect(breaker.refusal(check.request.origin)).toBeUndefined();
  });

  it('records a check that threw as neither answered nor timed out', async () => {
    const clock = { now: 0 };
    const breaker = breakerAt(clock);
    breaker.record(check.request.origin, 'timeout');
    const failing = guardSend(breaker)(async () => {
      throw new Error('engine closed');
    });
    await expect(failing(check)).rejects.toThrow('engine closed');
    breaker.record(check.request.origin, 'timeout');
    // Two timeouts in a row still: the thrown check did not reset the count.
    expect(breaker.refusal(check.request.origin)).toMatchObject({ timeouts: 2 });
  });
});
