/**
 * Which transport a check goes by (the policy is escalation.ts): it starts at its
 * platform's, or at the costlier one its site was found to need (transport-book.ts); an
 * answer that is a bot defence is asked again through the next transport, within its
 * search's escalations; a transport that got past the defence is remembered for the site.
 */
import type { Transport } from '../../catalogue/platform.js';
import {
  isBotDefence,
  type LackingTransport,
  lackingTransport,
  lackingVerdict,
  nextTransport,
  startTransport,
  transportLearned,
} from '../escalation.js';
import { describeTransportError, hasErrorCode, transportErrorReason } from '../transport/transport-error.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE, type Transports } from '../transport/transports.js';
import type { TransportBook } from '../transport-book.js';
import { type AnsweredDecision, unsentUnknownOutcome } from '../verdict/outcome.js';
import type { CheckRequest } from '../verdict/request.js';
import type { Check, Reply, SendWrapper, Wrapper } from './dispatch.js';
import { needsBrowser } from './unsent.js';

export interface TransportChoiceOptions {
  /** The transports other than `http` (transports.ts); absent: every request goes by http. */
  readonly transports?: Transports | undefined;
  /** Which transport sites were found to need; absent: each check starts at its platform's. */
  readonly book?: TransportBook | undefined;
}

/**
 * Sets the transport a check starts at; a check whose start this process lacks is not sent.
 * A check that starts at the browser first waits for a browser slot, at most `timeoutMs` (as
 * a check waits for a send time), and holds it through its deadline, which starts once it has
 * one: a deadline spent queueing for a context read a challenged site `timeout`. An escalation
 * to the browser takes its slot within the deadline it already has.
 */
export function chooseTransport(options: TransportChoiceOptions & { readonly timeoutMs: number }): Wrapper {
  const { transports, book, timeoutMs } = options;
  return (next) => async (check) => {
    const { platform } = check;
    const start = startTransport(platform.transport, book?.needed(check.site, check.egress.name));
    const missing = start === 'http' ? undefined : transports?.missing(start);
    if (missing) {
      const why = start === platform.transport ? missing : `${missing} (its site was found to need ${start})`;
      return { outcome: needsBrowser(platform, check.profileUrl, why) };
    }
    if (start !== 'browser' || !transports) return next({ ...check, transport: start });
    const admission = await waitForBrowser(transports, check, timeoutMs);
    if ('heldBack' in admission)
      return {
        outcome: unsentUnknownOutcome(platform, check.profileUrl, 'budget_exhausted', admission.heldBack),
      };
    try {
      return await next({ ...check, transport: start, admitted: true });
    } finally {
      admission.release();
    }
  };
}

/** A browser slot within `timeoutMs`, the wait cancelled with its search and aborted with its engine. */
async function waitForBrowser(
  transports: Transports,
  check: Check,
  timeoutMs: number,
): ReturnType<Transports['admitBrowser']> {
  const cancelled = new AbortController();
  const handle = check.cancel;
  if (handle) handle.cancel = (reason) => cancelled.abort(reason);
  const waits = [cancelled.signal, AbortSignal.timeout(timeoutMs), ...(check.signal ? [check.signal] : [])];
  try {
    const admission = await transports.admitBrowser(AbortSignal.any(waits));
    // Ended as the slot came: the slot goes back, not with the check.
    const ended = check.signal?.aborted
      ? check.signal
      : cancelled.signal.aborted
        ? cancelled.signal
        : undefined;
    if (ended && 'release' in admission) admission.release();
    if (ended) throw ended.reason;
    return admission;
  } finally {
    if (handle) handle.cancel = undefined;
  }
}

/**
 * A bot defence (a shield's page, or a refused handshake) asked again through the next
 * transport, if the search may still escalate; an escalation that fails leaves the defence's
 * answer standing. A defence that could have been
 * tried further, but for the search's spent escalations or the browser's caps, says why it
 * was not; one that only a transport this process lacks (the browser) could be tried past
 * reads needs_browser: installing it is what would reach the site.
 */
export function escalate(options: TransportChoiceOptions): SendWrapper {
  const { transports, book } = options;
  const lacks = (t: Transport) => (t === 'http' ? undefined : transports?.missing(t));
  return (send) => async (check) => {
    const first = await send(check);
    const escalations = check.escalations;
    const firstRead = defenceOrVerdict(first);
    if (!firstRead || !escalations) return first;
    const start = check.transport;
    const fits = (t: Transport) => t !== 'http' && keepsSession(t, check.request);
    let unescalated: string | undefined;
    let lacking: LackingTransport | undefined;
    const escalation = (verdict: AnsweredDecision, from: Transport): Transport | undefined => {
      if (!isBotDefence(verdict)) return undefined;
      const next = nextTransport(from, (t) => fits(t) && lacks(t) === undefined);
      if (next && escalations.take()) return next;
      if (next && escalations.size > 0)
        unescalated = `not tried through ${next}: this search's escalations (USERSCOUT_ESCALATIONS) are spent`;
      if (!next && escalations.size > 0) lacking = lackingTransport(from, fits, lacks);
      return undefined;
    };
    let reply = first;
    let verdict = firstRead;
    for (let next = escalation(verdict, reply.transport); next; next = escalation(verdict, reply.transport)) {
      const tried = await send({ ...check, transport: next });
      const read = defenceOrVerdict(tried);
      if (!tried.answered && !read) {
        if (hasErrorCode(tried.error, [BROWSER_HELD_BACK_CODE]))
          unescalated = (tried.error as Error).message.replace(/^not sent/, `not tried through ${next}`);
        else if (hasErrorCode(tried.error, [NEEDS_BROWSER_CODE]))
          lacking = { transport: next, why: describeTransportError(tried.error) };
        // The defence stands; how the costlier transport failed is part of its rule, as a reason, not
        // the error's text: a rule read from an answer is stored as catalogue vocabulary (compact-outcome.ts).
        else
          unescalated = `tried through ${next}, no answer: ${tried.timedOut ? 'timeout' : transportErrorReason(tried.error)}`;
        break;
      }
      reply = tried;
      verdict = read ?? verdict;
    }
    if (unescalated) verdict = { ...verdict, rule: `${verdict.rule}; ${unescalated}` };
    // Learned from the defence's own answer: reading needs_browser teaches nothing of the site.
    const learned = transportLearned(start, reply.transport, verdict);
    if (learned) book?.learned(check.site, check.egress.name, learned);
    if (lacking) verdict = lackingVerdict(verdict, lacking);
    return reply.answered ? { ...reply, verdict } : { ...reply, defence: verdict };
  };
}

/** What a reply reads: its answer's verdict, or the defence a refused handshake is read as; undefined for any other failure. */
function defenceOrVerdict(reply: Reply): AnsweredDecision | undefined {
  return reply.answered ? reply.verdict : reply.defence;
}

/** A browser keeps cookies to one host, not headers (browser.ts): a header session goes by no browser. */
function keepsSession(transport: Transport, request: CheckRequest): boolean {
  return transport !== 'browser' || !request.session?.hasHeaders;
}
