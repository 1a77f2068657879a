/**
 * A platform that needs a session shows a wall, not the account, to a check without one:
 * such a check is not sent.
 */
import type { Wrapper } from './dispatch.js';
import { sessionRequired } from './unsent.js';

export const sessionGate: Wrapper = (next) => async (check) =>
  check.platform.session === 'required' && !check.session
    ? { outcome: sessionRequired(check.platform, check.profileUrl) }
    : next(check);
