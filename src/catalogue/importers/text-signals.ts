/**
 * Body signals built from upstream marker strings. Our `exists` list is ALL-of,
 * and "not" exists only as a part of a compound `all` signal, so any-of and
 * none-of lists of strings become one regex each, with the strings escaped.
 */
import type { SignalSpec } from '../schema.js';

/** Escapes a string so it matches itself, with or without the `u` flag. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function alternation(texts: readonly string[]): string {
  return texts.map(escapeRegex).join('|');
}

/** The body contains at least one of the texts. */
export function anyOfTexts(texts: readonly string[]): SignalSpec {
  if (texts.length === 1) return { text: texts[0]! };
  return { regex: alternation(texts) };
}

/** The body contains none of the texts (anchored, so the lookahead runs once). */
export function noneOfTexts(texts: readonly string[]): SignalSpec {
  return { regex: `^(?![\\s\\S]*(?:${alternation(texts)}))` };
}

/** The body contains one of `texts` and none of `unless`. */
export function anyOfTextsUnless(texts: readonly string[], unless: readonly string[]): SignalSpec {
  if (unless.length === 0) return anyOfTexts(texts);
  return { regex: `^(?![\\s\\S]*(?:${alternation(unless)}))[\\s\\S]*?(?:${alternation(texts)})` };
}
