/**
 * The literal text every match of a pattern must start with, read from its
 * source: the catalogue's patterns are mostly alternations of markers, and
 * finding a marker with `indexOf` is hundreds of times cheaper than running
 * the linear-time engine over a whole page. Pure; conservative: a pattern it
 * cannot read gives no prefilter, and the engine then reads the whole page.
 * A pattern's leads are the same for every name checked: the loader refuses
 * `{username}` in a regex, which only a text may hold (filled in per check).
 */

/** How a pattern's matches begin. */
export interface LiteralStarts {
  /** One leading literal per top-level alternative, in the pattern's order; every match starts with one. */
  readonly leads: readonly string[];
  /** Every alternative is its lead and nothing more: a match is exactly one of the leads. */
  readonly exact: boolean;
}

const META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
const QUANTIFIERS = new Set(['?', '*', '{']);

/** The leading literals of `source` (RE2 syntax, no flags), or undefined when an alternative has none. */
export function literalStarts(source: string): LiteralStarts | undefined {
  const alternatives = topLevelAlternatives(source);
  if (!alternatives) return undefined;
  const leads: string[] = [];
  let exact = true;
  for (const alternative of alternatives) {
    const lead = leadingLiteral(alternative);
    if (lead.text === '') return undefined;
    leads.push(lead.text);
    exact &&= lead.whole;
  }
  return { leads, exact };
}

/** `source` split at its top-level `|`, or undefined when its brackets do not balance. */
function topLevelAlternatives(source: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` first in a class is a literal bracket, not its end.
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
    } else if (c === '(') depth++;
    else if (c === ')') {
      if (--depth < 0) return undefined;
    } else if (c === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || inClass) return undefined;
  parts.push(source.slice(start));
  return parts;
}

/**
 * The literal an alternative starts with, and whether that literal is all of it. Escaped
 * punctuation is literal; an escaped letter or digit (a class, an assertion) ends the literal,
 * and a quantifier takes back the character it applies to.
 */
function leadingLiteral(alternative: string): { text: string; whole: boolean } {
  const chars: string[] = [];
  let i = 0;
  while (i < alternative.length) {
    const c = alternative[i]!;
    if (c === '\\') {
      const next = alternative[i + 1];
      if (next === undefined || /[0-9A-Za-z]/.test(next)) break;
      chars.push(next);
      i += 2;
      continue;
    }
    if (META.has(c)) break;
    // A character beyond the BMP is two code units; a quantifier then applies to both.
    const code = alternative.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    chars.push(char);
    i += char.length;
  }
  const rest = alternative.slice(i);
  if (rest !== '' && QUANTIFIERS.has(rest[0]!)) {
    chars.pop();
    return { text: chars.join(''), whole: false };
  }
  return { text: chars.join(''), whole: rest === '' };
}
