/**
 * A site's browser budget, apart from its request budget: a browser check takes one of its
 * host's browser checks at once, or is not sent. The transport says what it needs here; the
 * composition fills it in from a rate budget (src/schedule), which the transport never imports.
 */
export interface BrowserBudget {
  /** Browser checks a host may have in a minute, named in the message of a check held back. */
  readonly perMinute: number;
  /** Takes one of `host`'s browser checks now: false when they are spent. */
  take(host: string): Promise<boolean>;
}
