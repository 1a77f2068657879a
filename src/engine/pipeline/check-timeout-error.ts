/** Why a check's requests were cut short: its deadline passed with no decision. */
export class CheckTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ABORT_ERR';
  constructor(ms: number) {
    super(`no decision within ${ms} ms`);
  }
}
