/**
 * Converts a username rule written for Python's `re` (Sherlock's and Maigret's
 * `regexCheck`) into a JavaScript pattern for the `u` flag, with the same meaning.
 * Pure. What has no faithful equivalent is refused with the reason, never guessed.
 *
 * Differences handled:
 * - `\w` and `\d` are Unicode-aware in Python 3 but ASCII in JavaScript;
 * - `{,n}` means `{0,n}` in Python and is a syntax error in JavaScript;
 * - `(?P<name>…)` / `(?P=name)` named groups, `\A`, `\Z`, `(?#…)` comments;
 * - the `u` flag refuses escapes and lone braces that Python reads as literals.
 *
 * Upstream tools test the rule with `re.search`, and so does our loader
 * (`RegExp.test`), so unanchored patterns keep their meaning as they are.
 */
export type RegexConversion =
  | { readonly ok: true; readonly pattern: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Python's `\w` on str: letters and numbers of any script, and the underscore —
 * written first, so that a `-` after `\w` in a class cannot make a range from it.
 */
const WORD_IN_CLASS = '_\\p{L}\\p{N}';
const DIGIT = '\\p{Nd}';
const NOT_DIGIT = '\\P{Nd}';

/** Characters that JavaScript's `u` mode lets you escape outside a class. */
const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

const QUANTIFIER = /^\{(\d*)(?:(,)(\d*))?\}/;

export function pythonRegexToJs(source: string): RegexConversion {
  let out = '';
  let inClass = false;
  /** Position right after `[` or `[^`: Python reads a `]` there as a literal. */
  let classStart = false;
  /** The last thing written inside a class was a class escape (`\w`, `\d`, `\s`). */
  let afterClassEscape = false;

  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const wasClassStart = classStart;
    classStart = false;
    const wasAfterClassEscape = afterClassEscape;
    afterClassEscape = false;

    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined) return fail('ends with a lone backslash');
      i++;
      const escaped = convertEscape(next, source.slice(i + 1), inClass);
      if (!escaped.ok) return escaped;
      out += escaped.pattern;
      i += escaped.consumed;
      afterClassEscape = inClass && escaped.classEscape;
      continue;
    }

    if (inClass) {
      if (c === ']' && !wasClassStart) {
        inClass = false;
        out += ']';
      } else if (c === '-' && wasAfterClassEscape && source[i + 1] !== ']') {
        // Python reads `[\w-.]` as \w, '-', '.'; JavaScript's u mode refuses a range from a class escape.
        out += '\\-';
      } else if (c === '[' || c === ']') {
        out += `\\${c}`;
      } else {
        out += c;
      }
      continue;
    }

    switch (c) {
      case '[': {
        inClass = true;
        classStart = true;
        out += '[';
        if (source[i + 1] === '^') {
          out += '^';
          i++;
        }
        break;
      }
      case ']':
      case '}':
        out += `\\${c}`;
        break;
      case '{': {
        const m = QUANTIFIER.exec(source.slice(i));
        if (m && (m[1] !== '' || m[2] !== undefined)) {
          out += m[2] === undefined ? `{${m[1]}}` : `{${m[1] || '0'},${m[3]}}`;
          i += m[0].length - 1;
        } else {
          out += '\\{';
        }
        break;
      }
      case '(': {
        const group = convertGroupOpening(source.slice(i));
        if (!group.ok) return group;
        out += group.pattern;
        i += group.consumed - 1;
        break;
      }
      default:
        out += c;
    }
  }
  if (inClass) return fail('has an unterminated character class');
  try {
    new RegExp(out, 'u');
  } catch (error) {
    return fail(`does not compile in JavaScript: ${(error as Error).message}`);
  }
  return { ok: true, pattern: out };
}

type Piece =
  | { ok: true; pattern: string; consumed: number; classEscape: boolean }
  | { ok: false; reason: string };

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function piece(pattern: string, consumed = 0, classEscape = false): Piece {
  return { ok: true, pattern, consumed, classEscape };
}

/** `next` follows a backslash; `rest` is what follows `next`. */
function convertEscape(next: string, rest: string, inClass: boolean): Piece {
  switch (next) {
    case 'w':
      return inClass ? piece(WORD_IN_CLASS, 0, true) : piece(`[${WORD_IN_CLASS}]`);
    case 'W':
      return inClass ? fail('uses \\W inside a character class') : piece(`[^${WORD_IN_CLASS}]`);
    case 'd':
      return piece(DIGIT, 0, true);
    case 'D':
      return piece(NOT_DIGIT, 0, true);
    case 's':
    case 'S':
      return piece(`\\${next}`, 0, true);
    case 'A':
      return inClass ? fail('uses \\A inside a character class') : piece('^');
    case 'Z':
    case 'z':
      return inClass ? fail(`uses \\${next} inside a character class`) : piece('$');
    case 'b':
      // Inside a class both languages read \b as backspace; outside, JavaScript's word boundary is ASCII-only.
      return inClass ? piece('\\x08') : fail('uses \\b, whose word boundary is ASCII-only in JavaScript');
    case 'B':
      return fail('uses \\B, whose word boundary is ASCII-only in JavaScript');
    case 'a':
      return piece('\\x07');
    case 'n':
    case 't':
    case 'r':
    case 'f':
    case 'v':
      return piece(`\\${next}`);
    case 'x': {
      const m = /^[0-9a-fA-F]{2}/.exec(rest);
      return m ? piece(`\\x${m[0]}`, 2) : fail('has an incomplete \\x escape');
    }
    case 'u': {
      const m = /^[0-9a-fA-F]{4}/.exec(rest);
      return m ? piece(`\\u${m[0]}`, 4) : fail('has an incomplete \\u escape');
    }
    case 'U': {
      const m = /^[0-9a-fA-F]{8}/.exec(rest);
      return m ? piece(`\\u{${m[0].replace(/^0+(?=.)/, '')}}`, 8) : fail('has an incomplete \\U escape');
    }
    case 'N':
      return fail('uses a named character escape (\\N{...})');
    default:
      break;
  }
  if (/[0-9]/.test(next)) {
    if (inClass || next === '0') return fail(`uses an octal escape \\${next}`);
    return piece(`\\${next}`); // a back-reference
  }
  if (/[A-Za-z]/.test(next)) return fail(`uses the escape \\${next}, unknown to Python`);
  // Any other escaped character is a literal in Python; the u flag accepts the escape only for syntax characters.
  if (SYNTAX.has(next) || (inClass && next === '-')) return piece(`\\${next}`);
  return piece(next);
}

/** `text` starts with `(`. Returns the JavaScript opening and how many characters it replaces. */
function convertGroupOpening(text: string): Piece {
  if (!text.startsWith('(?')) return piece('(', 1);
  const named = /^\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(text);
  if (named) return piece(`(?<${named[1]}>`, named[0].length);
  const reference = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(text);
  if (reference) return piece(`\\k<${reference[1]}>`, reference[0].length);
  if (text.startsWith('(?#')) {
    const end = text.indexOf(')');
    return end < 0 ? fail('has an unterminated comment group') : piece('', end + 1);
  }
  for (const kept of ['(?:', '(?=', '(?!', '(?<=', '(?<!']) {
    if (text.startsWith(kept)) return piece(kept, kept.length);
  }
  if (/^\(\?<[A-Za-z_]/.test(text)) return piece('(?<', 3);
  if (text.startsWith('(?>')) return fail('uses an atomic group (?>...)');
  if (text.startsWith('(?(')) return fail('uses a conditional group (?(...)');
  if (/^\(\?[aiLmsux-]+[):]/.test(text)) {
    return fail('uses inline flags (?...), which this JavaScript version cannot scope');
  }
  return fail('has an unknown group syntax');
}
