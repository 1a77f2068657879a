/**
 * Username rules: the one every search applies, and each platform's own.
 * Pure functions.
 */
import { ruleViolation } from '../catalogue/loader.js';
import type { Platform } from '../catalogue/platform.js';

// The rule shared with the web page lives in its own module without imports.
export { MAX_USERNAME_LENGTH, usernameProblem } from './username-rule.js';

/** The username as the platform receives it (lower-cased where the platform says so). */
export function platformUsername(platform: Platform, username: string): string {
  return platform.username.lowercase ? username.toLowerCase() : username;
}

/** Why the platform refuses this name, or undefined. */
export function platformRuleProblem(platform: Platform, username: string): string | undefined {
  return ruleViolation(platform.username, username);
}
