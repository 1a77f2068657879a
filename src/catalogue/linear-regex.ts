/**
 * The catalogue's regexes (detect signals, extract rules), run by a linear-time
 * engine (re2js, a port of RE2): they read answers a hostile site chooses, and a
 * backtracking engine (JavaScript's RegExp) can spend minutes on one careless
 * pattern. The syntax is RE2's: no lookaround and no backreferences, which only
 * backtracking can run; such a pattern is refused when the catalogue loads.
 */
import { RE2JS } from 're2js';
import { CatalogueError } from '../errors.js';
import { type LiteralStarts, literalStarts } from './literal-prefilter.js';

/**
 * Places where a lead occurs that are tried with an anchored match before the engine reads
 * on from there unanchored: a page full of a lead that never completes a match costs at most
 * this many reads of it, so a hostile page stays linear.
 */
const ANCHORED_TRIES = 8;

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

/** A pattern compiled, with what every match starts with when the pattern says (and no flag changes it). */
interface Compiled {
  readonly re: RE2JS;
  readonly starts: LiteralStarts | undefined;
}

/**
 * A pattern and its flags, compiled at its first use: a process reads a few hundred of the
 * catalogue's thousands of patterns in a search, and compiling them all cost every process
 * start (and each search thread) its largest share of loading. Frozen to its callers, and
 * stateless but for that one compile, so one instance serves every search at once. A
 * structured clone (a search thread's catalogue) keeps only `source` and `flags`:
 * `reviveLinearRegex` makes it again.
 */
export class LinearRegex {
  readonly source: string;
  readonly flags: string;
  readonly #bits: number;
  #compiled: Compiled | undefined;

  /**
   * Throws a `CatalogueError` when a flag is unknown; a pattern that is not RE2 syntax throws
   * at its first use, or here with `LinearRegex.checked` (what a catalogue's validation calls).
   */
  constructor(source: string, flags = '') {
    let bits = 0;
    for (const flag of flags) {
      const bit = FLAG_BITS[flag];
      if (bit === undefined) throw refused(source, `unknown flag ${JSON.stringify(flag)}`);
      bits |= bit;
    }
    this.#bits = bits;
    this.source = source;
    this.flags = flags;
    Object.freeze(this);
  }

  /** The pattern compiled now: throws a `CatalogueError` naming it when it is not RE2 syntax. */
  static checked(source: string, flags = ''): LinearRegex {
    const re = new LinearRegex(source, flags);
    re.#compile();
    return re;
  }

  #compile(): Compiled {
    if (this.#compiled) return this.#compiled;
    let re: RE2JS;
    try {
      re = RE2JS.compile(this.source, this.#bits);
    } catch (error) {
      throw refused(this.source, (error as Error).message, error);
    }
    this.#compiled = { re, starts: this.flags.includes('i') ? undefined : literalStarts(this.source) };
    return this.#compiled;
  }

  get #re(): RE2JS {
    return this.#compile().re;
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    const { re, starts } = this.#compile();
    if (!starts) return re.test(text);
    if (starts.exact) return starts.leads.some((lead) => text.includes(lead));
    return this.exec(text) !== undefined;
  }

  /** The first match in `text`, or undefined. */
  exec(text: string): LinearMatch | undefined {
    const { starts } = this.#compile();
    if (!starts) return this.#find(text, 0);
    const next = starts.leads.map((lead) => text.indexOf(lead));
    for (let tries = 0; ; tries++) {
      // The leftmost place a lead occurs; the first alternative in order wins a tie, as in the pattern.
      let at = -1;
      let which = -1;
      for (let i = 0; i < next.length; i++) {
        const index = next[i]!;
        if (index >= 0 && (at < 0 || index < at)) [at, which] = [index, i];
      }
      if (at < 0) return undefined;
      if (starts.exact) return { index: at, text: starts.leads[which]!, groups: {} };
      if (tries === ANCHORED_TRIES) return this.#find(text, at);
      const match = this.#anchored(text, at);
      if (match) return match;
      for (let i = 0; i < next.length; i++)
        if (next[i] === at) next[i] = text.indexOf(starts.leads[i]!, at + 1);
    }
  }

  /** The first match at or after `from`, read by the engine. */
  #find(text: string, from: number): LinearMatch | undefined {
    const matcher = this.#re.matcher(text);
    if (!matcher.find(from)) return undefined;
    return { index: matcher.start(), text: matcher.group() ?? '', groups: namedGroups(matcher) };
  }

  /**
   * The match starting exactly at `at`. Every alternative starts with a literal, so no
   * assertion looks before `at` and the text from there is all the engine needs.
   */
  #anchored(text: string, at: number): LinearMatch | undefined {
    const matcher = this.#re.matcher(text.slice(at));
    if (!matcher.lookingAt()) return undefined;
    return { index: at, text: matcher.group() ?? '', groups: namedGroups(matcher) };
  }

  /** Whether the pattern has a named group `name`. */
  hasGroup(name: string): boolean {
    return Object.hasOwn(this.#re.namedGroups(), name);
  }
}

function namedGroups(matcher: ReturnType<RE2JS['matcher']>): Record<string, string | undefined> {
  const groups: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(matcher.getNamedGroups())) groups[name] = value ?? undefined;
  return groups;
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
