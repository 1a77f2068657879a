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
import { describeTransportError, hasErrorCode } from '../transport/transport-error.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE, type Transports } from '../transport/transports.js';
import type { TransportBook } from '../transport-book.js';
import type { AnsweredDecision } from '../verdict/outcome.js';
import type { CheckRequest } from '../verdict/request.js';
import type { SendWrapper, Wrapper } from './dispatch.js';
import { needsBrowser } from './unsent.js';

export interface TransportChoiceOptions {
  /** The transports other than `http` (transports.ts); absent: every request goes by http. */
  readonly transports?: Transports | undefined;
  /** Which transport sites were found to need; absent: each check starts at its platform's. */
  readonly book?: TransportBook | undefined;
}

/** Sets the transport a check starts at; a check whose start this process lacks is not sent. */
export function chooseTransport(options: TransportChoiceOptions): Wrapper {
  const { transports, book } = options;
  return (next) => async (check) => {
    const { platform } = check;
    const start = startTransport(platform.transport, book?.needed(check.site, check.egress.name));
    const missing = start === 'http' ? undefined : transports?.missing(start);
    if (missing) {
      const why = start === platform.transport ? missing : `${missing} (its site was found to need ${start})`;
      return { outcome: needsBrowser(platform, check.profileUrl, why) };
    }
    return next({ ...check, transport: start });
  };
}

/**
 * A bot defence asked again through the next transport, if the search may still escalate; an
 * escalation that fails leaves the defence's answer standing. A defence that could have been
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
    if (!first.answered || !escalations) return first;
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
    let verdict = first.verdict;
    for (let next = escalation(verdict, reply.transport); next; next = escalation(verdict, reply.transport)) {
      const tried = await send({ ...check, transport: next });
      if (!tried.answered) {
        if (hasErrorCode(tried.error, [BROWSER_HELD_BACK_CODE]))
          unescalated = (tried.error as Error).message.replace(/^not sent/, `not tried through ${next}`);
        if (hasErrorCode(tried.error, [NEEDS_BROWSER_CODE]))
          lacking = { transport: next, why: describeTransportError(tried.error) };
        break;
      }
      reply = tried;
      verdict = tried.verdict;
    }
    if (unescalated) verdict = { ...verdict, rule: `${verdict.rule}; ${unescalated}` };
    // Learned from the defence's own answer: reading needs_browser teaches nothing of the site.
    const learned = transportLearned(start, reply.transport, verdict);
    if (learned) book?.learned(check.site, check.egress.name, learned);
    if (lacking) verdict = lackingVerdict(verdict, lacking);
    return { ...reply, verdict };
  };
}

/** A browser keeps cookies to one host, not headers (browser.ts): a header session goes by no browser. */
function keepsSession(transport: Transport, request: CheckRequest): boolean {
  return transport !== 'browser' || !request.session?.hasHeaders;
}
