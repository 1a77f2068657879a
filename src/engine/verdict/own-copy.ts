/**
 * A copy of a piece of text that shares no memory with the text it was cut from.
 * V8 keeps a slice of a long string (`slice`, `trim`, a regular expression's group)
 * as a view of the whole string: a page title kept in a hit's answer print, or a
 * profile's name kept in its outcome, kept the whole answer body (tens of kilobytes,
 * up to the body cap) alive as long as the record that holds it. Pure.
 */

/** V8 copies slices shorter than this anyway (SlicedString::kMinLength). */
const SHORT = 13;

/** The same text, as a string of its own. */
export function ownCopy(text: string): string {
  // JSON's round trip is the identity for every string, lone surrogates included, and builds a new one.
  return text.length < SHORT ? text : (JSON.parse(JSON.stringify(text)) as string);
}
