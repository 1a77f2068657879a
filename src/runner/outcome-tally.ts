/**
 * The outcomes this process's searches produced, counted in shared memory: the search
 * job adds each one before it is stored (on a search thread, the in-thread runner or a
 * cluster worker) and /metrics reads the cells at each scrape (metrics.ts). A search
 * that reads completed is therefore counted already, with no message between them.
 * Also the one rule of what is counted of an outcome (`add`).
 *
 * What is counted is each outcome produced, as the checks it stands for were made: a
 * search resumed after a crash lost its last batch counts those platforms again, as they
 * are checked again, and in cluster mode each process counts its own.
 */

import { TRANSPORTS, type Transport } from '../catalogue/platform.js';
import {
  ERROR_REASONS,
  INVALID_REASONS,
  OUTCOME_STATUSES,
  type Outcome,
  type OutcomeReason,
  type OutcomeStatus,
  UNKNOWN_REASONS,
} from '../engine/verdict/outcome.js';
import { sharedCells, sharedCellsBuffer } from '../shared-cells.js';

/** Upper bounds (seconds) of the check duration histogram's buckets. */
export const CHECK_SECONDS_BUCKETS: readonly number[] = Object.freeze([0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16]);

/** Every reason label: '' for an outcome without a reason, then each reason of the unions. */
const REASONS: readonly (OutcomeReason | '')[] = [
  '',
  ...UNKNOWN_REASONS,
  ...ERROR_REASONS,
  ...INVALID_REASONS,
];

// The cells: a count per status and reason (every pair, as the Outcome type allows any reason
// with any status), a count per duration bucket and one past the last, the durations' sum in
// microseconds (integer cells), then a count per transport.
const CHECKS = 0;
const BUCKETS = CHECKS + OUTCOME_STATUSES.length * REASONS.length;
const OVER = BUCKETS + CHECK_SECONDS_BUCKETS.length;
const SUM_MICROS = OVER + 1;
const BY_TRANSPORT = SUM_MICROS + 1;
const CELLS = BY_TRANSPORT + TRANSPORTS.length;

export interface CheckCount {
  readonly status: OutcomeStatus;
  readonly reason: OutcomeReason | '';
  readonly count: number;
}

export interface OutcomeReading {
  /** Outcomes by status and reason ('' for none): the pairs counted at least once. */
  readonly checks: readonly CheckCount[];
  /** The timed outcomes' durations in seconds. */
  readonly seconds: {
    /** How many took at most each bound of `CHECK_SECONDS_BUCKETS` (cumulative, as Prometheus reads them). */
    readonly buckets: readonly number[];
    readonly sum: number;
    readonly count: number;
  };
  /** Answered outcomes (not from the cache) by the transport that got the answer. */
  readonly transports: Readonly<Record<Transport, number>>;
}

export class OutcomeTally {
  /** A buffer for a tally that several threads share. */
  static createBuffer(): SharedArrayBuffer {
    return sharedCellsBuffer(CELLS);
  }

  readonly buffer: SharedArrayBuffer;
  readonly #cells: BigInt64Array;

  /** Over `buffer` when given (shared with other threads); otherwise a buffer of its own. */
  constructor(buffer: SharedArrayBuffer = OutcomeTally.createBuffer()) {
    this.buffer = buffer;
    this.#cells = sharedCells(buffer, CELLS, 'an outcome tally');
  }

  /**
   * Counts one outcome of a search: by status and reason, always; its duration, unless it is
   * invalid (nothing was sent) or from the cache (it took no time now); its transport, when an
   * answer also arrived.
   */
  add(outcome: Outcome): void {
    Atomics.add(this.#cells, CHECKS + checkCell(outcome), 1n);
    if (outcome.status === 'invalid' || outcome.evidence.cachedAt !== undefined) return;
    // A clock that went back, or no time measured, is counted as no time.
    const ms = Number.isFinite(outcome.responseTime) ? Math.max(0, outcome.responseTime) : 0;
    const bucket = CHECK_SECONDS_BUCKETS.findIndex((le) => ms / 1000 <= le);
    Atomics.add(this.#cells, bucket === -1 ? OVER : BUCKETS + bucket, 1n);
    Atomics.add(this.#cells, SUM_MICROS, BigInt(Math.round(ms * 1000)));
    if (outcome.evidence.httpStatus === undefined) return;
    const transport = TRANSPORTS.indexOf(outcome.evidence.transport ?? 'http');
    // This version's engine made the outcome (a cached one is not counted here): its transport is one of these.
    if (transport !== -1) Atomics.add(this.#cells, BY_TRANSPORT + transport, 1n);
  }

  read(): OutcomeReading {
    const at = (cell: number) => Number(Atomics.load(this.#cells, cell));
    const checks: CheckCount[] = [];
    OUTCOME_STATUSES.forEach((status, s) => {
      REASONS.forEach((reason, r) => {
        const count = at(CHECKS + s * REASONS.length + r);
        if (count > 0) checks.push({ status, reason, count });
      });
    });
    let below = 0;
    const buckets = CHECK_SECONDS_BUCKETS.map((_, i) => {
      below += at(BUCKETS + i);
      return below;
    });
    const transports = Object.fromEntries(
      TRANSPORTS.map((transport, i) => [transport, at(BY_TRANSPORT + i)]),
    ) as Record<Transport, number>;
    return {
      checks,
      // The count is the buckets' own total, so the last bucket (+Inf) never disagrees with it.
      seconds: { buckets, sum: at(SUM_MICROS) / 1e6, count: below + at(OVER) },
      transports,
    };
  }
}

/**
 * The cell of an outcome's status and reason. An outcome read from a store that another
 * version wrote (the cache, in a cluster being upgraded) may carry a status or reason this
 * version does not know: it is still counted, so the counts add up to the outcomes, under
 * its status with no reason (a status unknown here, as `unknown`: it tells nothing here).
 */
function checkCell(outcome: Outcome): number {
  const status = OUTCOME_STATUSES.indexOf(outcome.status);
  const reason = outcome.reason === undefined ? 0 : REASONS.indexOf(outcome.reason);
  if (status === -1) return OUTCOME_STATUSES.indexOf('unknown') * REASONS.length;
  return status * REASONS.length + Math.max(0, reason);
}
