/**
 * What a check is as it goes through the pipeline (pipeline.ts), and the two shapes of its
 * steps: a check's (`Dispatch`, from the session gate to the retries) and one request's
 * (`Send`, from the site-limit learning to the exchange). A step is a wrapper, undici's
 * interceptor style: it takes the next step and gives one of the same shape.
 */
import type { Dispatcher } from 'undici';
import type { Platform, Transport } from '../../catalogue/platform.js';
import type { BudgetLimit } from '../../schedule/rate-budget.js';
import type { RateSignals } from '../../schedule/rate-signals.js';
import type { Cancellation, CheckBooking, Scheduled } from '../../schedule/scheduler.js';
import type { SentCheck } from '../controls/control-guard.js';
import type { EscalationBudget } from '../escalation.js';
import type { Exchange } from '../transport/http.js';
import type { Decision } from '../verdict/classify.js';
import type { AnsweredDecision } from '../verdict/outcome.js';
import type { CheckRequest } from '../verdict/request.js';
import type { Session } from '../verdict/session.js';

/** Books a check's send time: a started search's admission, or the scheduler itself for a check on its own. */
export type BookCheck = <T>(request: CheckBooking<T>) => Promise<Scheduled<T>>;

/** The egress identity a check goes through. */
export interface Egress {
  /** Its index in the scheduler's order of identities (the transports know it by that). */
  readonly index: number;
  /** Its name: what control records, learned limits and transports are kept by. */
  readonly name: string;
  readonly dispatcher: Dispatcher;
  /**
   * Waits for another send time of the check's site through this identity (a retry's, a
   * control's), at most `maxWaitMs`; false when none comes. Absent: no budget to keep.
   */
  readonly slot?: ((maxWaitMs: number) => Promise<boolean>) | undefined;
  /** Asked at each request: close its connection after the answer. Absent: never. */
  readonly closeAfter?: (() => boolean) | undefined;
}

/** One platform, one username, as the steps see it: plain data, each step adding what it decides. */
export interface Check {
  readonly platform: Platform;
  readonly username: string;
  readonly request: CheckRequest;
  readonly profileUrl: string;
  /** The operator's session for the platform, if any. */
  readonly session: Session | undefined;
  /** The site its request budget counts against (politeness-bound.ts `budgetOrigin`). */
  readonly site: string;
  /** The catalogue's budget of that site: its platform's own, or the default. */
  readonly ceiling: BudgetLimit;
  /** Higher first. */
  readonly priority: number;
  /** Where its send time is booked (its search's admission); absent: the scheduler itself. */
  readonly book: BookCheck | undefined;
  /** Cancels it while it waits for its send time (its search ended). */
  readonly cancel: Cancellation | undefined;
  /** Told when it joins an identical check already made, here or elsewhere, instead of booking its own (send-once.ts). */
  readonly joined: (() => void) | undefined;
  /** Aborts it whatever it is doing (the engine closing). */
  readonly signal: AbortSignal | undefined;
  /** Its search's escalations to costlier transports; absent: none. */
  readonly escalations: EscalationBudget | undefined;
  /** The identity it goes through: the first until its send time is booked (schedule.ts). */
  readonly egress: Egress;
  /** The transport it starts at: its platform's, or the one its site was found to need (transport-choice.ts). */
  readonly transport: Transport;
  /** A browser slot is held for it from before its deadline (transport-choice.ts). */
  readonly admitted: boolean;
}

/** What sending a check gave: its outcome, and its answer's print when one arrived. */
export type Sent = SentCheck;

export type Dispatch = (check: Check) => Promise<Sent>;
export type Wrapper = (next: Dispatch) => Dispatch;

/** The time a check's requests must be answered within (retries.ts sets it). */
export interface Deadline {
  /** When the check's sending started (the engine's clock). */
  readonly started: number;
  /** When it ends (the engine's clock). */
  readonly at: number;
  /** Aborts at the deadline, or when the check's own signal aborts. */
  readonly signal: AbortSignal;
}

/** A check while one of its requests is out. */
export interface Sending extends Check {
  readonly deadline: Deadline;
}

/** How one request ended: an answer read and classified, or none (a refused handshake read as a defence). */
export type Reply =
  | {
      readonly answered: true;
      /** The transport the answer came through. */
      readonly transport: Transport;
      readonly exchange: Exchange<Decision>;
      readonly verdict: AnsweredDecision;
      /** What the answer says of the site's limit, when it may say anything (heard-answer.ts). */
      readonly signals: RateSignals | undefined;
    }
  | {
      readonly answered: false;
      readonly transport: Transport;
      readonly error: unknown;
      /** It ended at the check's deadline. */
      readonly timedOut: boolean;
      /**
       * The server refused the TLS handshake: read as a shield's block page is, a defence to
       * escalate from (escalation.ts `refusedHandshake`); absent for any other failure.
       */
      readonly defence?: AnsweredDecision | undefined;
    };

export type Send = (check: Sending) => Promise<Reply>;
export type SendWrapper = (next: Send) => Send;

/** `core` inside `wrappers`, the first outermost: a check meets them in their order. */
export function compose<F>(wrappers: readonly ((next: F) => F)[], core: F): F {
  return wrappers.reduceRight<F>((next, wrap) => wrap(next), core);
}
