/**
 * The catalogue's regexes (detect signals, extract rules), run by a linear-time
 * engine (re2js, a port of RE2): they read answers a hostile site chooses, and a
 * backtracking engine (JavaScript's RegExp) can spend minutes on one careless
 * pattern. The syntax is RE2's: no lookaround and no backreferences, which only
 * backtracking can run; such a pattern is refused when the catalogue loads.
 */
import { RE2JS } from 're2js';
import { CatalogueError } from '../errors.js';

/** The flags a catalogue regex may carry, as JavaScript writes them, and RE2's equivalent. */
const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  // RE2 always reads text as code points, as JavaScript does with `u`.
  u: 0,
};

/** The first match of a `LinearRegex`, shaped like the parts of a RegExp match the engine reads. */
export interface LinearMatch {
  /** Where it starts in the text (UTF-16 index, as RegExp's `index`). */
  readonly index: number;
  /** The matched text. */
  readonly text: string;
  /** Each named group's text; undefined for a group that took no part. */
  readonly groups: Readonly<Record<string, string | undefined>>;
}

/**
 * A pattern and its flags, compiled once. Frozen, and stateless, so one
 * instance serves every search at once. A structured clone (a search thread's
 * catalogue) keeps only `source` and `flags`: `reviveLinearRegex` compiles it again.
 */
export class LinearRegex {
  readonly source: string;
  readonly flags: string;
  readonly #re: RE2JS;

  /** Throws a `CatalogueError` naming the pattern when it is not RE2 syntax or a flag is unknown. */
  constructor(source: string, flags = '') {
    let bits = 0;
    for (const flag of flags) {
      const bit = FLAG_BITS[flag];
      if (bit === undefined) throw refused(source, `unknown flag ${JSON.stringify(flag)}`);
      bits |= bit;
    }
    try {
      this.#re = RE2JS.compile(source, bits);
    } catch (error) {
      throw refused(source, (error as Error).message, error);
    }
    this.source = source;
    this.flags = flags;
    Object.freeze(this);
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    return this.#re.test(text);
  }

  /** The first match in `text`, or undefined. */
  exec(text: string): LinearMatch | undefined {
    const matcher = this.#re.matcher(text);
    if (!matcher.find()) return undefined;
    const groups: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(matcher.getNamedGroups())) groups[name] = value ?? undefined;
    return { index: matcher.start(), text: matcher.group() ?? '', groups };
  }

  /** Whether the pattern has a named group `name`. */
  hasGroup(name: string): boolean {
    return Object.hasOwn(this.#re.namedGroups(), name);
  }
}

/** Lookaround or a backreference, written as JavaScript does: named in the refusal, as RE2's own message is terse. */
const BACKTRACKING_ONLY = /\(\?<?[=!]|\\[1-9]|\\k</;

function refused(source: string, reason: string, cause?: unknown): CatalogueError {
  const why = BACKTRACKING_ONLY.test(source)
    ? '; lookaround and backreferences need a backtracking engine, which a hostile answer can stall'
    : '';
  return new CatalogueError(
    `regex does not compile for the linear-time engine (RE2 syntax${why}): ${reason}, in ${JSON.stringify(source)}`,
    { cause, details: { pattern: source } },
  );
}

/** A `LinearRegex` again from what a structured clone kept of one (or the instance itself). */
export function reviveLinearRegex(re: { readonly source: string; readonly flags: string }): LinearRegex {
  return re instanceof LinearRegex ? re : new LinearRegex(re.source, re.flags);
}
