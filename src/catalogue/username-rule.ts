/**
 * The username rules: the one every search applies (`usernameProblem`), and each
 * platform's own (`UsernameRule`: built from catalogue data here, checked by
 * `ruleViolation`). Pure, and without imports, so the web page bundles this very
 * module and tells a person what is wrong before sending.
 */

/** Longest username any platform is asked about; longer names are refused before any request. */
export const MAX_USERNAME_LENGTH = 100;

/** A platform's own username rule, as compiled at load time. */
export interface UsernameRule {
  /**
   * A JavaScript RegExp, unlike the regexes that read answers (linear-regex.ts): it only
   * ever sees the name asked about, at most MAX_USERNAME_LENGTH characters, never a site's
   * text; and rules need lookahead (GitHub's "no double hyphen"), which RE2 cannot run.
   */
  readonly pattern: RegExp | undefined;
  readonly lowercase: boolean;
  readonly minLength: number;
  readonly maxLength: number;
}

/** A rule as catalogue data writes it (every field optional). */
export interface UsernameRuleData {
  readonly pattern?: string | undefined;
  readonly lowercase?: boolean | undefined;
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
}

/**
 * Characters refused in any username: controls, white space, and characters
 * that are structural in URLs (`/ ? # % \ @ :` and brackets/quotes/angle brackets).
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}/?#%\\@:<>"'`[\]{}|^]/u;

/**
 * Whether `ch` is a character no name holds (white space, a quote, `<`, `/`…): one on each
 * side of a name in a page bounds it there, so a longer name holding it does not match.
 */
export function boundsName(ch: string | undefined): boolean {
  return ch !== undefined && [...ch].length === 1 && FORBIDDEN.test(ch);
}

/** A character a person cannot see, named: "a tab", "a line break", else its code point ("U+200B"). */
function describeInvisible(ch: string): string {
  if (ch === '\t') return 'tabs';
  if (ch === '\n' || ch === '\r' || ch === '\u2028' || ch === '\u2029') return 'line breaks';
  if (ch === '\u00a0') return 'non-breaking spaces (U+00A0)';
  return codePoint(ch);
}

/** "U+212A". */
function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A lone UTF-16 surrogate: half of a character, which no platform can be sent
 * (encodeURIComponent throws "URI malformed"). With the `u` flag a well-formed pair
 * is one code point and does not match. `String.prototype.isWellFormed` says the same
 * from Node 20, but the web page bundles this module for older browsers too.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a username is refused by every platform, or undefined when it is acceptable. */
export function usernameProblem(username: string): string | undefined {
  if (username.length === 0) return 'must not be empty';
  const half = LONE_SURROGATE.exec(username);
  if (half) {
    return `is not valid text: it holds half of a character (${codePoint(half[0])}, an unpaired surrogate), which usually comes from text cut in the middle of an emoji or another character`;
  }
  if ([...username].length > MAX_USERNAME_LENGTH) return `must be at most ${MAX_USERNAME_LENGTH} characters`;
  const bad = FORBIDDEN.exec(username);
  if (bad) {
    const ch = bad[0];
    const shown =
      ch === ' ' ? 'spaces' : /[\p{Cc}\p{Cf}\p{Z}]/u.test(ch) ? describeInvisible(ch) : JSON.stringify(ch);
    return `must not contain ${shown} (no white space, control characters or / ? # % \\ @ : < > " ' \` [ ] { } | ^)`;
  }
  if (/^\.+$/.test(username)) return 'must not consist of dots only';
  return undefined;
}

/**
 * The frozen rule catalogue data describes, defaults filled in; a platform never
 * allows more than `MAX_USERNAME_LENGTH`. Throws when the pattern does not compile.
 */
export function compileUsernameRule(data: UsernameRuleData = {}): UsernameRule {
  return Object.freeze({
    pattern: data.pattern ? new RegExp(data.pattern, 'u') : undefined,
    lowercase: data.lowercase ?? false,
    minLength: data.minLength ?? 1,
    maxLength: Math.min(data.maxLength ?? MAX_USERNAME_LENGTH, MAX_USERNAME_LENGTH),
  });
}

/**
 * The first character that lowercasing would turn into a character it is not the
 * capital of (KELVIN SIGN U+212A becomes the letter k, İ becomes i plus a dot), or
 * undefined when lowercasing only changes capitals into their own small letters.
 * Folding such a name would check, and credit, another name than the one asked about.
 */
export function unsafeFold(username: string): string | undefined {
  for (const ch of username) {
    const lower = ch.toLowerCase();
    if (lower !== ch && lower.toUpperCase() !== ch) return ch;
  }
  return undefined;
}

/**
 * The username as the platform receives it: lower-cased where its rule says so, and
 * only when lowercasing is safe (`unsafeFold`); such a name breaks the rule anyway.
 */
export function platformUsername(platform: { readonly username: UsernameRule }, username: string): string {
  return platform.username.lowercase && unsafeFold(username) === undefined
    ? username.toLowerCase()
    : username;
}

/**
 * What a platform without a pattern of its own allows (an imported entry with
 * no `regexCheck`): printable ASCII. A name in another script is `invalid` there,
 * never sent: such a site may answer any odd name with a page that reads as a hit.
 */
const ASCII_ONLY = /^[\x21-\x7e]*$/;

/** Whether a name is all printable ASCII: what a platform without a pattern of its own allows. */
export function isPrintableAscii(name: string): boolean {
  return ASCII_ONLY.test(name);
}

/**
 * Why a name, as it was given, breaks a platform's rule, or undefined when it fits.
 * On a lowercasing platform the rule is checked on the name before folding first:
 * lowercasing must never turn a character outside the allowed set into one inside it.
 */
export function ruleViolation(rule: UsernameRule, username: string): string | undefined {
  if (rule.lowercase) {
    const ch = unsafeFold(username);
    if (ch !== undefined) {
      return `contains ${JSON.stringify(ch)} (${codePoint(ch)}), which this platform would read as ${JSON.stringify(ch.toLowerCase())}: another name`;
    }
  }
  const name = rule.lowercase ? username.toLowerCase() : username;
  if (!rule.pattern && !isPrintableAscii(name))
    return 'has characters outside ASCII, which a platform without a username pattern is taken not to allow';
  const length = [...name].length;
  if (length < rule.minLength) return `shorter than ${rule.minLength} characters`;
  if (length > rule.maxLength) return `longer than ${rule.maxLength} characters`;
  if (rule.pattern && !rule.pattern.test(name)) return `does not match ${rule.pattern.source}`;
  return undefined;
}
