import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import { outcomeOf } from '../../../test/support/outcome.js';
import { ControlGuard } from '../controls/control-guard.js';
import { MemoryControlLedger } from '../controls/control-ledger.js';
import { controls } from './controls.js';
import type { Check, Dispatch } from './dispatch.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;

function guard(eager: boolean) {
  return new ControlGuard({
    ledger: new MemoryControlLedger(),
    windowMs: 60_000,
    waitMs: 2_000,
    clock: Date.now,
    random: Math.random,
    eager,
  });
}

/** A site where `taken` names exist, its answers printed alike; `sent` records what went. */
function site(taken: (name: string) => boolean) {
  const sent: Check[] = [];
  const next: Dispatch = async (check) => {
    sent.push(check);
    const hit = taken(check.username);
    return {
      outcome: outcomeOf('alpha', hit ? 'hit' : 'miss', {
        evidence: { rule: 'r', attempts: 1, httpStatus: 200 },
      }),
      answer: { httpStatus: 200, finalUrl: check.profileUrl, bodyLength: hit ? 100 : 50 },
    };
  };
  return { next, sent };
}

describe('the controls step', () => {
  it('lets a miss stand without a control when controls are lazy', async () => {
    const { next, sent } = site((name) => name === 'alice');
    const { outcome } = await controls({ guard: guard(false), baseHeaders: {}, timeoutMs: 1_000 })(next)(
      checkOf(platform!, 'bob'),
    );
    expect(outcome.status).toBe('miss');
    expect(sent.map((c) => c.username)).toEqual(['bob']);
  });

  it('sends a control for a hit, through the same identity and at a send time of its own', async () => {
    const { next, sent } = site((name) => name === 'alice');
    const slots: number[] = [];
    const check = checkOf(platform!, 'alice', {
      egress: {
        ...checkOf(platform!).egress,
        name: 'addr:10.0.0.2',
        slot: async (ms) => {
          slots.push(ms);
          return true;
        },
      },
    });
    const { outcome } = await controls({ guard: guard(false), baseHeaders: {}, timeoutMs: 1_000 })(next)(
      check,
    );
    expect(outcome.status).toBe('hit');
    expect(outcome.evidence.control).toContain('read miss');
    expect(slots).toEqual([1_000]);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.username).not.toBe('alice');
    expect(sent[1]!.egress.name).toBe('addr:10.0.0.2');
    expect(sent[1]!.request.url).toContain(sent[1]!.username);
  });

  it('reads a hit as rule drift when the control reads a hit too', async () => {
    const { next } = site(() => true);
    const { outcome } = await controls({ guard: guard(true), baseHeaders: {}, timeoutMs: 1_000 })(next)(
      checkOf(platform!, 'alice'),
    );
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
  });

  it('sends the control alongside the check when eager, before the check is answered', async () => {
    const { next, sent } = site(() => false);
    await controls({ guard: guard(true), baseHeaders: {}, timeoutMs: 1_000 })(next)(
      checkOf(platform!, 'bob'),
    );
    expect(sent).toHaveLength(2);
  });

  it('reads budget_exhausted for a control with no send time, and the hit stands with it named', async () => {
    const { next, sent } = site((name) => name === 'alice');
    const check = checkOf(platform!, 'alice', {
      egress: { ...checkOf(platform!).egress, slot: async () => false },
    });
    const { outcome } = await controls({ guard: guard(false), baseHeaders: {}, timeoutMs: 1_000 })(next)(
      check,
    );
    expect(sent).toHaveLength(1);
    expect(outcome.status).toBe('hit');
    expect(outcome.evidence.control).toContain('budget_exhausted');
  });
});
