/**
 * Runs control checks (control.ts) and keeps their records in a ledger shared
 * by every process: a platform's control is sent at most once per window and
 * egress identity, however many searches, threads and workers check there at
 * once. The first to claim the lease on the next control sends it; the others
 * wait (bounded) for its record. The ledger failing never fails a check: the
 * hit then stands, without a control.
 */
import type { Platform } from '../../catalogue/platform.js';
import { UNANSWERED_CONTROL_MS } from '../../tuning.js';
import type { Outcome } from '../verdict/outcome.js';
import { type AnswerPrint, type ControlRecord, controlName, controlRecord, judgeHit } from './control.js';
import type { ControlLedger } from './control-ledger.js';

/** What sending one check gave: its outcome, and its answer's print when one arrived. */
export interface SentCheck {
  readonly outcome: Outcome;
  readonly answer?: AnswerPrint | undefined;
}

export interface ControlGuardOptions {
  readonly ledger: ControlLedger;
  /** How long a control stands before the next hit on its platform checks another (ms). */
  readonly windowMs: number;
  /** Longest wait for a control another process is checking (ms); also how long its lease is held. */
  readonly waitMs: number;
  /** Wall clock (ms epoch): records are compared across processes. */
  readonly clock: () => number;
  readonly random: () => number;
  /** Polling interval while another process checks the control (ms). @default 100 */
  readonly pollMs?: number;
  /** Called with every control record this process writes (metrics, logs). */
  readonly onControl?: (record: ControlRecord) => void;
  /**
   * Send a due control alongside any check of its platform, not only once a hit needs it:
   * a hit then waits for no control after its own answer, at the cost of one request per
   * platform and identity per window whether or not it had a hit (the service). Lazy (a
   * one-off command) sends one only for platforms that had a hit. A predicate decides per
   * platform: the command line is eager only where it remembers the platform as slow, so a
   * slow hit does not wait a second latency for its control. @default false
   */
  readonly eager?: boolean | ((platform: Platform) => boolean);
}

/** A platform's control through one identity, as this process keeps it. */
function controlKey(platform: Platform, identity: string): string {
  return `${platform.id}\u0000${identity}`;
}

/** How long a control record stands: the window, or less when the control got no answer. */
function freshFor(record: ControlRecord, windowMs: number): number {
  return record.answer === undefined ? Math.min(windowMs, UNANSWERED_CONTROL_MS) : windowMs;
}

export class ControlGuard {
  readonly #options: ControlGuardOptions;
  /** Controls this process is checking or waiting for, by platform and identity. */
  readonly #pending = new Map<string, Promise<ControlRecord | undefined>>();
  /**
   * Records read or written, trusted without reading the ledger again until they are due: no
   * process sends the next control before then (each waits out the same window), so the
   * ledger could only give the same record back; a short memo instead of this had many
   * searches at once read the ledger for a third of their checks.
   */
  readonly #memo = new Map<string, { readonly record: ControlRecord; readonly until: number }>();

  constructor(options: ControlGuardOptions) {
    this.#options = options;
  }

  /** Whether a due control of `platform` goes out alongside its check (see `eager`). */
  eagerFor(platform: Platform): boolean {
    const eager = this.#options.eager ?? false;
    return typeof eager === 'function' ? eager(platform) : eager;
  }

  /** The hit as it stands after its platform's control (see `judgeHit`); other outcomes unchanged. */
  async vet(
    platform: Platform,
    identity: string,
    hit: SentCheck,
    sendControl: (username: string) => Promise<SentCheck>,
    /** The control already asked for alongside the check (eager), if it was. */
    early?: Promise<ControlRecord | undefined>,
  ): Promise<Outcome> {
    if (hit.outcome.status !== 'hit') return hit.outcome;
    const record = await (early ?? this.current(platform, identity, sendControl));
    return judgeHit(hit.outcome, hit.answer, record);
  }

  /**
   * How many of `identities` a check of `platform` could send a control through alongside
   * it (eager) because none stands or is being checked here: searches count those requests
   * against the site's budget before they start (engine.ts, src/schedule/scheduler.ts). Reads only
   * this process's memo, so a control another process checked counts until it is read.
   */
  controlsDue(platform: Platform, identities: readonly string[]): number {
    if (!this.eagerFor(platform)) return 0;
    const now = this.#options.clock();
    let due = 0;
    for (const identity of identities) {
      const key = controlKey(platform, identity);
      if (this.#standing(key, now) === undefined && !this.#pending.has(key)) due++;
    }
    return due;
  }

  /** The record kept for `key` while it stands (see #memo), else undefined. */
  #standing(key: string, now: number): ControlRecord | undefined {
    const memo = this.#memo.get(key);
    return memo && now < memo.until ? memo.record : undefined;
  }

  /** The platform's control through `identity`, checked now when the last one is older than the window. */
  current(
    platform: Platform,
    identity: string,
    sendControl: (username: string) => Promise<SentCheck>,
  ): Promise<ControlRecord | undefined> {
    const key = controlKey(platform, identity);
    const { clock, windowMs } = this.#options;
    const standing = this.#standing(key, clock());
    if (standing) return Promise.resolve(standing);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#refresh(platform, identity, sendControl)
        .then((record) => {
          if (record)
            this.#memo.set(key, {
              record,
              until: record.checkedAt + freshFor(record, windowMs),
            });
          return record;
        })
        .catch(() => undefined)
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  async #refresh(
    platform: Platform,
    identity: string,
    sendControl: (username: string) => Promise<SentCheck>,
  ): Promise<ControlRecord | undefined> {
    const { ledger, windowMs, waitMs, clock } = this.#options;
    const last = await ledger.getControl(platform.id, identity);
    if (last && clock() - last.checkedAt < freshFor(last, windowMs)) return last;
    // One lease per record it follows: one process sends the next control, the others wait for it.
    const claimed = await ledger.claimLease(
      `control:${platform.id}:${identity}:${last?.checkedAt ?? 0}`,
      waitMs,
      clock(),
    );
    if (!claimed) return this.#awaitOther(platform, identity, last);
    const username = controlName(platform, this.#options.random);
    if (username === undefined) return last;
    const sent = await sendControl(username);
    const record = controlRecord(last, sent, identity, username, clock());
    await ledger.putControl(record);
    this.#options.onControl?.(record);
    return record;
  }

  /** Another process is checking this control: its record once written, or the last one after `waitMs`. */
  async #awaitOther(
    platform: Platform,
    identity: string,
    last: ControlRecord | undefined,
  ): Promise<ControlRecord | undefined> {
    const { ledger, waitMs, clock } = this.#options;
    const pollMs = this.#options.pollMs ?? 100;
    const until = clock() + waitMs;
    while (clock() < until) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const now = await ledger.getControl(platform.id, identity);
      if (now && (!last || now.checkedAt > last.checkedAt)) return now;
    }
    return last;
  }
}
