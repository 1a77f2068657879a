/**
 * Status groups the importers use to restate upstream rules such as "anything
 * but 2xx means missing" as explicit `status` lists. The policy lives here, once:
 *
 * - A hit needs a success status. Upstream rules that read "no error text on the
 *   page" as an account would otherwise call a server error page an account.
 * - A status-based "missing" covers redirects and client errors, but not the
 *   answers that say nothing about the account (401, 403, 407, 429, 5xx): those
 *   stay `unknown`, unless the upstream entry names the code itself.
 *
 * Only registered codes are listed; an unregistered one (499, 520) gives unknown.
 */
export const SUCCESS: readonly number[] = [200, 201, 202, 203, 204, 205, 206, 207, 208, 226];

const REDIRECTION = [300, 301, 302, 303, 304, 305, 307, 308];

const CLIENT_ERROR = [
  400, 402, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421, 422, 423, 424, 425,
  426, 428, 431, 451,
];

/** Answers that mean "no such page" for upstream rules that treat every non-2xx as missing. */
export const NOT_FOUND_LIKE: readonly number[] = [...REDIRECTION, ...CLIENT_ERROR];

/** Access, proxy, rate-limit and server answers: they describe the request, not the account. */
function saysNothingAboutAccount(status: number): boolean {
  return status === 401 || status === 403 || status === 407 || status === 429 || status >= 500;
}

/** A redirect or client error that can stand alone as a "missing" signal. */
export function isNotFoundLike(status: number): boolean {
  return status >= 300 && status < 500 && !saysNothingAboutAccount(status);
}

/** Sorted, without duplicates. */
export function statusUnion(...lists: readonly (readonly number[])[]): number[] {
  return [...new Set(lists.flat())].sort((a, b) => a - b);
}

export function statusWithout(list: readonly number[], remove: readonly number[]): number[] {
  return list.filter((code) => !remove.includes(code));
}

export function isHttpStatus(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;
}
