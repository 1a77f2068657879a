/**
 * Body signals built from upstream marker strings. Our `exists` list is ALL-of,
 * and "not" exists only as a part of a compound `all` signal, so an any-of list
 * of strings becomes one regex, with the strings escaped, and a none-of list a
 * `not` part (regexes run in linear time: no lookahead, linear-regex.ts).
 */
import type { BasicSignalSpec, SignalSpec } from '../schema.js';
import { PLACEHOLDER } from '../template.js';

/** Escapes a string so it matches itself, with or without the `u` flag. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function alternation(texts: readonly string[]): string {
  return texts.map(escapeRegex).join('|');
}

/** Any answer: what a compound signal of `not` parts alone stands on (it needs one fact that holds). */
const ANY_ANSWER: BasicSignalSpec = { regex: '^' };

/** The body contains at least one of the texts. */
export function anyOfTexts(texts: readonly string[]): BasicSignalSpec {
  // The lists mean the letters `{username}` where a marker holds them; our text would name the account.
  if (texts.length === 1 && !texts[0]!.includes(PLACEHOLDER)) return { text: texts[0]! };
  return { regex: alternation(texts) };
}

/** The body contains none of the texts. */
export function noneOfTexts(texts: readonly string[]): SignalSpec {
  return { all: [ANY_ANSWER, { not: anyOfTexts(texts) }] };
}

/** The body contains one of `texts` and none of `unless`. */
export function anyOfTextsUnless(texts: readonly string[], unless: readonly string[]): SignalSpec {
  if (unless.length === 0) return anyOfTexts(texts);
  return { all: [anyOfTexts(texts), { not: anyOfTexts(unless) }] };
}
