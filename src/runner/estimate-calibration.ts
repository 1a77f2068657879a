/**
 * What the estimate model cannot see on its own: how much slower (or faster)
 * searches run on this deployment than the model says, for example when the
 * machine's CPU, not the sites, sets the pace. Each finished search tells how
 * far its estimate was off; the factor moves a step towards closing that gap
 * (in log space, so being 2× short and 2× long weigh alike), bounded, and every
 * new estimate is multiplied by it. No IO: the owner feeds it what it sees.
 * A search estimated while most of its platforms had never been measured (the
 * first ones on a new deployment, which also pay every connection's first
 * handshake) says how little the model knew, not how this deployment runs:
 * it is not learnt from.
 */
import { Lru } from '../lru.js';
import { UNMEASURED_SHARE_NOT_LEARNT } from '../tuning.js';

/** Cold searches remembered (by id): the least recently seen are forgotten past this. */
const COLD_KEPT = 10_000;

export interface CalibrationOptions {
  /** How far one finished search moves the factor (0 to 1). @default 0.25 */
  readonly step?: number;
  /** The factor never leaves [1 / bound, bound]. @default 4 */
  readonly bound?: number;
}

export class EstimateCalibration {
  #log = 0;
  readonly #cold = new Lru<string, true>(COLD_KEPT);
  readonly #step: number;
  readonly #bound: number;

  constructor(options: CalibrationOptions = {}) {
    this.#step = options.step ?? 0.25;
    this.#bound = Math.log(options.bound ?? 4);
  }

  /** What model estimates are multiplied by now. */
  get factor(): number {
    return Math.exp(this.#log);
  }

  /** Search `id` was estimated with `unmeasured` of its `platforms` never measured. */
  estimated(id: string, platforms: number, unmeasured: number): void {
    if (unmeasured > platforms * UNMEASURED_SHARE_NOT_LEARNT) this.#cold.set(id, true);
  }

  /**
   * A search finished `actualMs` after it started, having been told `estimatedSeconds`
   * (as calibrated then); `id`, when given, lets a cold search (`estimated`) be passed over.
   */
  observe(estimatedSeconds: number, actualMs: number, id?: string): void {
    if (id !== undefined && this.#cold.get(id)) return;
    if (!(estimatedSeconds > 0) || !(actualMs > 0)) return;
    const residual = Math.log(actualMs / (estimatedSeconds * 1000));
    this.#log = Math.max(-this.#bound, Math.min(this.#bound, this.#log + this.#step * residual));
  }

  /** A model estimate (seconds) with the factor applied, whole seconds, at least 1. */
  apply(modelSeconds: number): number {
    return Math.max(1, Math.ceil(modelSeconds * this.factor));
  }
}
