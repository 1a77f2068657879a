/**
 * Username rules: the one every search applies, and each platform's own.
 * Pure functions.
 */
import { MAX_USERNAME_LENGTH, ruleViolation } from '../catalogue/loader.js';
import type { Platform } from '../catalogue/platform.js';

export { MAX_USERNAME_LENGTH };

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

/** The username as the platform receives it (lower-cased where the platform says so). */
export function platformUsername(platform: Platform, username: string): string {
  return platform.username.lowercase ? username.toLowerCase() : username;
}

/** Why the platform refuses this name, or undefined. */
export function platformRuleProblem(platform: Platform, username: string): string | undefined {
  return ruleViolation(platform.username, username);
}
