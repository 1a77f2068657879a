/**
 * Slots for browser checks: a counting semaphore that several holders share, the
 * process's (its open contexts, transport-tally.ts) or the cluster's (leases in
 * Redis, src/redis/browser-slots.ts). A slot freed elsewhere wakes no one here,
 * so a check that finds none asks again every BROWSER_SLOT_POLL_MS until one is
 * free or its deadline comes.
 */
import { BROWSER_SLOT_POLL_MS } from '../../tuning.js';
import type { TransportTally } from './transport-tally.js';

/**
 * Browser checks at once: the cluster's cap with Redis (each process also keeps its own);
 * alone, the smaller of the process's cap and the cluster's, which is then the process's.
 */
export function browserChecksAtOnce(
  config: { readonly browserContexts: number; readonly browserChecksAtOnce: number },
  clustered: boolean,
): number {
  return clustered
    ? config.browserChecksAtOnce
    : Math.min(config.browserContexts, config.browserChecksAtOnce);
}

/** Gives a slot back; called once, later calls do nothing. */
export type SlotRelease = () => void;

export interface BrowserSlots {
  /**
   * A slot if one is free now, held at most `holdMs` (a lease a dead holder cannot keep),
   * else undefined.
   */
  tryTake(holdMs: number): Promise<SlotRelease | undefined>;
}

/** Every slot free: the cap of a process with no cluster. */
export const UNBOUNDED_SLOTS: BrowserSlots = { tryTake: async () => () => {} };

/** The process's slots: its open contexts, counted in its tally, at most `cap`. */
export class ProcessBrowserSlots implements BrowserSlots {
  readonly #tally: TransportTally;
  readonly #cap: number;

  constructor(tally: TransportTally, cap: number) {
    this.#tally = tally;
    this.#cap = cap;
  }

  async tryTake(): Promise<SlotRelease | undefined> {
    if (!this.#tally.tryOpenContext(this.#cap)) return undefined;
    return once(() => this.#tally.closeContext());
  }
}

/**
 * Waits for a slot of `slots` until `signal` aborts: the release, or undefined when the
 * signal came first (nothing is then held). `waited` is told once when the first ask finds none.
 */
export async function takeSlot(
  slots: BrowserSlots,
  holdMs: number,
  signal: AbortSignal,
  waited?: () => void,
): Promise<SlotRelease | undefined> {
  for (let first = true; !signal.aborted; first = false) {
    const release = await slots.tryTake(holdMs);
    if (release) {
      if (!signal.aborted) return release;
      release();
      return undefined;
    }
    if (first) waited?.();
    await pause(BROWSER_SLOT_POLL_MS, signal);
  }
  return undefined;
}

/** `release` callable any number of times, acting once. */
export function once(release: () => void): SlotRelease {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
