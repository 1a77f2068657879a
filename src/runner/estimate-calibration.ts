/**
 * What the estimate model cannot see on its own: how much slower (or faster)
 * searches run on this deployment than the model says, for example when the
 * machine's CPU, not the sites, sets the pace. Each finished search tells how
 * far its estimate was off; the factor moves a step towards closing that gap
 * (in log space, so being 2× short and 2× long weigh alike), bounded, and every
 * new estimate is multiplied by it. No IO: the owner feeds it what it sees.
 */

export interface CalibrationOptions {
  /** How far one finished search moves the factor (0 to 1). @default 0.25 */
  readonly step?: number;
  /** The factor never leaves [1 / bound, bound]. @default 4 */
  readonly bound?: number;
}

export class EstimateCalibration {
  #log = 0;
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

  /** A search finished `actualMs` after it started, having been told `estimatedSeconds` (as calibrated then). */
  observe(estimatedSeconds: number, actualMs: number): void {
    if (!(estimatedSeconds > 0) || !(actualMs > 0)) return;
    const residual = Math.log(actualMs / (estimatedSeconds * 1000));
    this.#log = Math.max(-this.#bound, Math.min(this.#bound, this.#log + this.#step * residual));
  }

  /** A model estimate (seconds) with the factor applied, whole seconds, at least 1. */
  apply(modelSeconds: number): number {
    return Math.max(1, Math.ceil(modelSeconds * this.factor));
  }
}
