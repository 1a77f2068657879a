import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import { outcomeOf } from '../../../test/support/outcome.js';
import type { Dispatch } from './dispatch.js';
import { sessionGate } from './session-gate.js';

const [open, walled] = catalogueOf([entry('Open'), entry('Walled', { session: 'required' })]).platforms;

describe('the session gate', () => {
  const next: Dispatch = async (check) => ({ outcome: outcomeOf(check.platform.id, 'miss') });

  it('lets a platform that needs no session through', async () => {
    expect((await sessionGate(next)(checkOf(open!))).outcome.status).toBe('miss');
  });

  it('sends nothing to a platform that needs a session when none is configured', async () => {
    const { outcome } = await sessionGate(next)(checkOf(walled!));
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'session_required' });
    expect(outcome.evidence.attempts).toBe(0);
  });
});
