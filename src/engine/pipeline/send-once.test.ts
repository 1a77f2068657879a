import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import { outcomeOf } from '../../../test/support/outcome.js';
import type { Cancellation } from '../../schedule/scheduler.js';
import { ChecksInFlight } from '../checks-in-flight.js';
import type { SharedChecks } from '../shared-checks.js';
import type { Check, Dispatch, Sent } from './dispatch.js';
import { sendOnce, sendOnceAcross } from './send-once.js';

const [alpha, folded] = catalogueOf([
  entry('Alpha'),
  entry('Folded', { username: { pattern: '^[A-Za-z0-9+-]+$', lowercase: true } }),
]).platforms;

/** A next step whose checks wait for their send time until the test sends or cancels them, as a booking does. */
function booked() {
  const waiting: { check: Check; send: () => void }[] = [];
  const next: Dispatch = (check) =>
    new Promise<Sent>((resolve, reject) => {
      const handle = check.cancel;
      if (handle)
        handle.cancel = (reason) => {
          handle.cancel = undefined;
          reject(reason);
        };
      waiting.push({
        check,
        send: () => {
          if (handle) handle.cancel = undefined;
          resolve({ outcome: outcomeOf(check.platform.id, 'miss') });
        },
      });
    });
  return { waiting, next };
}

function counter() {
  const c = { count: 0, joined: () => c.count++ };
  return c;
}

describe('identical checks sent once in a process', () => {
  it('sends identical checks at the same time once; the one that joins is told, and both get its outcome', async () => {
    const { waiting, next } = booked();
    const send = sendOnce(new ChecksInFlight())(next);
    const [first, second] = [counter(), counter()];
    const a = send(checkOf(alpha!, 'alice', { joined: first.joined }));
    const b = send(checkOf(alpha!, 'alice', { joined: second.joined }));
    expect(waiting).toHaveLength(1);
    expect([first.count, second.count]).toEqual([0, 1]);
    waiting[0]!.send();
    expect(await b).toBe(await a);
  });

  it('tells checks apart by platform and by the name the request carries (the platform’s rule applied)', async () => {
    const { waiting, next } = booked();
    const send = sendOnce(new ChecksInFlight())(next);
    void send(checkOf(alpha!, 'alice'));
    void send(checkOf(alpha!, 'Alice'));
    void send(checkOf(folded!, 'alice'));
    void send(checkOf(folded!, 'Alice'));
    expect(waiting.map((w) => `${w.check.platform.name} ${w.check.username}`)).toEqual([
      'Alpha alice',
      'Alpha Alice',
      'Folded alice',
    ]);
  });

  it('sends again once the shared check has ended: sharing is not a cache', async () => {
    const { waiting, next } = booked();
    const send = sendOnce(new ChecksInFlight())(next);
    const a = send(checkOf(alpha!));
    waiting[0]!.send();
    await a;
    void send(checkOf(alpha!));
    expect(waiting).toHaveLength(2);
  });

  it('keeps the check for a caller still waiting, and cancels it unsent once the last caller leaves', async () => {
    const { waiting, next } = booked();
    const send = sendOnce(new ChecksInFlight())(next);
    const mine: Cancellation = {};
    const theirs: Cancellation = {};
    const a = send(checkOf(alpha!, 'alice', { cancel: mine }));
    const b = send(checkOf(alpha!, 'alice', { cancel: theirs }));
    mine.cancel?.(new Error('search ended'));
    // Leaving twice counts once.
    mine.cancel?.(new Error('search ended'));
    // Still booked: the other caller waits.
    expect(waiting[0]!.check.cancel?.cancel).toBeDefined();
    theirs.cancel?.(new Error('search ended'));
    await expect(a).rejects.toThrow('search ended');
    await expect(b).rejects.toThrow('search ended');
    // Never shared again: an identical check is sent anew.
    void send(checkOf(alpha!, 'alice'));
    expect(waiting).toHaveLength(2);
  });

  it('never cancels a check a caller that cannot leave waits for', async () => {
    const { waiting, next } = booked();
    const send = sendOnce(new ChecksInFlight())(next);
    const leave: Cancellation = {};
    const alone = send(checkOf(alpha!));
    const searched = send(checkOf(alpha!, 'alice', { cancel: leave }));
    leave.cancel?.(new Error('search ended'));
    waiting[0]!.send();
    expect((await alone).outcome.status).toBe('miss');
    expect(await searched).toBe(await alone);
  });

  it('cancels every check not sent yet when the engine closes', async () => {
    const { next } = booked();
    const inFlight = new ChecksInFlight<Sent>();
    const send = sendOnce(inFlight)(next);
    const checks = [send(checkOf(alpha!, 'alice')), send(checkOf(folded!, 'bob'))];
    inFlight.cancelAll(new Error('engine closed'));
    for (const check of checks) await expect(check).rejects.toThrow('engine closed');
  });
});

describe('identical checks sent once in a cluster', () => {
  it('runs a check under its platform and encoded name, telling it when it waits for another process', async () => {
    const keys: string[] = [];
    const elsewhere: SharedChecks = {
      async run(key, check, waiting) {
        keys.push(key);
        waiting?.();
        return check();
      },
    };
    const waits = counter();
    const next: Dispatch = async (check) => ({ outcome: outcomeOf(check.platform.id, 'hit') });
    const { outcome } = await sendOnceAcross(elsewhere)(next)(
      checkOf(folded!, 'Bob+Smith', { joined: waits.joined }),
    );
    expect(outcome.status).toBe('hit');
    expect(keys).toEqual([`${folded!.id}:bob%2Bsmith`]);
    expect(waits.count).toBe(1);
  });
});
