/**
 * The shared tail of every importer's entry conversion: the upstream username
 * rule made a JavaScript pattern, the known names checked against it, and the
 * catalogue entry assembled. Pure.
 */
import type { Category } from '../categories.js';
import type { Transport } from '../platform.js';
import type { CheckSpec, PlatformSpec, SignalSpec } from '../schema.js';
import { compileUsernameRule, isPrintableAscii } from '../username-rule.js';
import { type Conversion, rejectEntry } from './assemble.js';
import { knownNames } from './known-names.js';
import { pythonRegexToJs } from './python-regex.js';

export interface EntryParts {
  readonly name: string;
  readonly category: Category;
  /** The home page, or why none could be told (checked after the username rule and known names). */
  readonly home: string | { readonly reason: string };
  readonly profile: string;
  readonly check: CheckSpec;
  readonly detect: { readonly exists: SignalSpec[]; readonly missing: SignalSpec[] };
  /** The username rule as Python's `re` writes it (Sherlock's and Maigret's `regexCheck`). */
  readonly regexCheck?: string | undefined;
  /** The username rule as a JavaScript pattern already (when there is no `regexCheck`). */
  readonly pattern?: string | undefined;
  readonly claimed: readonly string[];
  readonly unclaimed?: readonly string[] | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly notes?: readonly string[] | undefined;
  /** How its checks reach the site (defence-tags.ts); absent or `http`: the default. */
  readonly transport?: Transport | undefined;
}

/** Letters and digits of any script, and the separators names commonly hold. */
const ANY_LETTERS = '^[\\p{L}\\p{M}\\p{N}_.\\-]+$';

export function finishEntry(parts: EntryParts): Conversion {
  let pattern = parts.pattern;
  if (parts.regexCheck !== undefined) {
    const converted = pythonRegexToJs(parts.regexCheck);
    if (!converted.ok) {
      return rejectEntry(`regexCheck ${JSON.stringify(parts.regexCheck)} ${converted.reason}`);
    }
    pattern = converted.pattern;
  }
  // Without a rule an entry is taken to allow ASCII only (username-rule.ts); where its own
  // known accounts are in another script, the site evidently takes letters of any script.
  if (pattern === undefined && parts.claimed.some((name) => !isPrintableAscii(name))) pattern = ANY_LETTERS;
  const known = knownNames(compileUsernameRule({ pattern }), parts.claimed, parts.unclaimed);
  if ('reason' in known) return rejectEntry(known.reason);
  if (typeof parts.home !== 'string') return rejectEntry(parts.home.reason);

  const spec: PlatformSpec = {
    name: parts.name.trim(),
    category: parts.category,
    home: parts.home,
    profile: parts.profile,
    ...(Object.keys(parts.check).length > 0 ? { check: parts.check } : {}),
    ...(parts.transport && parts.transport !== 'http' ? { transport: parts.transport } : {}),
    detect: parts.detect,
    ...(pattern ? { username: { pattern } } : {}),
    known,
    ...(parts.tags?.length ? { tags: [...parts.tags] } : {}),
    ...(parts.notes?.length ? { notes: parts.notes.join(' ') } : {}),
  };
  return { spec };
}
