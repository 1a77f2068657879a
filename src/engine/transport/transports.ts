/**
 * The transports other than `http` (undici, http.ts), as the check sees them: an
 * exchange that takes the request the http path builds and gives back the answer
 * the classifier reads. Implemented in src/engine/transport/ (impit, Chromium).
 */
import type { Transport } from '../../catalogue/platform.js';
import type { CheckRequest } from '../verdict/request.js';
import type { ResponseView } from '../verdict/response-view.js';
import type { Exchange } from './http.js';

export interface TransportExchangeOptions<D> {
  /** Aborts the exchange: the check's deadline, or its search cancelled. */
  readonly signal: AbortSignal;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** As http.ts: returns the decision once the answer so far gives one, and reading stops. */
  readonly decide: (view: ResponseView) => D | undefined;
  /**
   * Whether a decision, read from `view`, is a challenge its page's script passes unattended
   * (escalation.ts `passesOnItsOwn`): the browser reads such a page again each time it moves on,
   * for a while and within the deadline, its last reading standing then. Absent: a page is
   * read once, when it settled.
   */
  readonly passes?: ((decision: D, view: ResponseView) => boolean) | undefined;
  /** A browser slot is held for the check from before its deadline (`admitBrowser`): the browser takes none. */
  readonly admitted?: boolean;
}

/** Codes of the errors a transport's exchange rejects with, read by transport-error.ts. */
export const NEEDS_BROWSER_CODE = 'EUSERSCOUT_NEEDS_BROWSER';
/** A browser check not sent for its cost: no browser slot within its deadline, or its site's browser budget spent. */
export const BROWSER_HELD_BACK_CODE = 'EUSERSCOUT_BROWSER_HELD_BACK';

export interface Transports {
  /** Why checks through `transport` cannot be sent by this process (no browser installed); undefined: they can. */
  missing(transport: Exclude<Transport, 'http'>): string | undefined;
  /** Sends the check through `transport`, by egress identity `identity` (its index). */
  exchange<D>(
    transport: Exclude<Transport, 'http'>,
    identity: number,
    request: CheckRequest,
    options: TransportExchangeOptions<D>,
  ): Promise<Exchange<D>>;
  /**
   * Waits, until `signal` aborts, for a browser slot that a check starting at the browser holds
   * through its deadline, so that its deadline starts once it has one: the slot's release and
   * nothing else to say, or why none came (nothing is then held).
   */
  admitBrowser(
    signal: AbortSignal,
  ): Promise<{ readonly release: () => void } | { readonly heldBack: string }>;
  /** Ends their processes, servers and connections. */
  close(): Promise<void>;
}
