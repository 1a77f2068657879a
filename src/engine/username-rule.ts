/**
 * The username rule every search applies. No imports, so the web page bundles
 * this very module and tells a person what is wrong before sending.
 */

/** Longest username any platform is asked about; longer names are refused before any request. */
export const MAX_USERNAME_LENGTH = 100;

/**
 * Characters refused in any username: controls, white space, and characters
 * that are structural in URLs (`/ ? # % \ @ :` and brackets/quotes/angle brackets).
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}/?#%\\@:<>"'`[\]{}|^]/u;

/** Why a username is refused by every platform, or undefined when it is acceptable. */
export function usernameProblem(username: string): string | undefined {
  if (username.length === 0) return 'must not be empty';
  if ([...username].length > MAX_USERNAME_LENGTH) return `must be at most ${MAX_USERNAME_LENGTH} characters`;
  const bad = FORBIDDEN.exec(username);
  if (bad) {
    const ch = bad[0];
    const shown = /[\p{Cc}\p{Cf}\p{Z}]/u.test(ch)
      ? `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
      : JSON.stringify(ch);
    return `must not contain ${shown} (no white space, control characters or / ? # % \\ @ : < > " ' \` [ ] { } | ^)`;
  }
  if (/^\.+$/.test(username)) return 'must not consist of dots only';
  return undefined;
}
