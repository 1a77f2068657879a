/**
 * What the classifier sees of an HTTP answer. Built by the HTTP edge, read by
 * pure functions; `complete` says whether more body can still arrive.
 */
export interface ResponseView {
  readonly status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  /** URL of this answer (the last hop when redirects are followed). */
  readonly url: string;
  /** The request was redirected at least once before this answer (follow policy). */
  readonly redirected: boolean;
  /** Body text read so far (decoded as UTF-8; the HTTP edge may decode it when it is first read). */
  readonly body: string;
  /** No more body will be read: the end was reached, or the size cap. */
  readonly complete: boolean;
}
