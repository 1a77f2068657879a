/**
 * A hit is vetted by its platform's control (controls/control-guard.ts): a name that cannot
 * exist, sent through the same identity at a send time of the same budget, and through the
 * rest of the pipeline as a check is. Eager (the service): a due control goes out alongside
 * the check, so a hit does not wait for it after its answer.
 */
import type { ControlGuard } from '../controls/control-guard.js';
import { invalidOutcome } from '../verdict/outcome.js';
import { buildRequest } from '../verdict/request.js';
import type { Sent, Wrapper } from './dispatch.js';
import { budgetExhausted } from './unsent.js';

export interface ControlsOptions {
  readonly guard: ControlGuard;
  /** The headers every request carries (a control is built as its check was). */
  readonly baseHeaders: Readonly<Record<string, string>>;
  /** Longest wait for a control's send time (ms): a check's deadline. */
  readonly timeoutMs: number;
}

export function controls(options: ControlsOptions): Wrapper {
  const { guard, baseHeaders, timeoutMs } = options;
  return (next) => async (check) => {
    const { platform, egress } = check;
    const sendControl = async (name: string): Promise<Sent> => {
      const built = buildRequest(platform, name, baseHeaders, check.session);
      if (!built.ok)
        return { outcome: invalidOutcome(platform, built.profileUrl, built.reason, built.message) };
      if (egress.slot && !(await egress.slot(timeoutMs)))
        return { outcome: budgetExhausted(platform, built.profileUrl, check.ceiling, timeoutMs) };
      check.signal?.throwIfAborted();
      return next({ ...check, username: name, request: built.request, profileUrl: built.profileUrl });
    };
    const early = guard.eagerFor(platform) ? guard.current(platform, egress.name, sendControl) : undefined;
    const sent = await next(check);
    if (sent.outcome.status !== 'hit') return sent;
    return { ...sent, outcome: await guard.vet(platform, egress.name, sent, sendControl, early) };
  };
}
