/**
 * Validates catalogue data and turns it into `Platform`s, frozen at the end
 * (freeze.ts). Every problem in a file is reported at once, by platform name
 * and field; a bad entry is left out, never allowed to crash a search.
 */

import { Value } from '@sinclair/typebox/value';
import { CatalogueError } from '../errors.js';
import { builtinFamilies } from './builtin-families.js';
import { CATEGORIES } from './categories.js';
import { expandFamilies } from './families.js';
import { freezeCatalogue } from './freeze.js';
import { heldHosts, ownFixedHosts, specHostFields } from './hosts.js';
import { LinearRegex } from './linear-regex.js';
import { normalisePlatform, normaliseShield } from './normalise.js';
import type { Catalogue, Platform, Shield } from './platform.js';
import {
  type BasicSignalSpec,
  CatalogueFileSchema,
  type ExtractRuleSpec,
  FamilySchema,
  type FamilySpec,
  PlatformSchema,
  type PlatformSpec,
  ShieldSchema,
  type ShieldSpec,
  type SignalSpec,
} from './schema.js';
import { fixedOrigin, inspectTemplate, PLACEHOLDER } from './template.js';
import { boundsName, compileUsernameRule, ruleViolation, type UsernameRule } from './username-rule.js';

export { parseCatalogueText } from './parse-text.js';

export interface CatalogueProblem {
  /** Platform name, or `#index` when the entry has no usable name. */
  readonly platform: string;
  /** JSON pointer of the field inside the entry ('' = the whole entry). */
  readonly field: string;
  readonly message: string;
}

export interface LoadResult {
  readonly catalogue: Catalogue;
  readonly problems: readonly CatalogueProblem[];
}

const SIGNAL_KINDS = ['status', 'text', 'regex', 'redirect', 'json', 'header', 'all'] as const;

/** Validates a parsed catalogue document (our own format). Throws only when the document itself is unusable. */
export function loadCatalogue(data: unknown, extraShields: readonly Shield[] = []): LoadResult {
  if (!Value.Check(CatalogueFileSchema, data)) {
    const first = [...Value.Errors(CatalogueFileSchema, data)][0];
    throw new CatalogueError(
      `Not a userscout catalogue: ${first ? `${first.path || '/'} ${first.message}` : 'expected an object with "platforms": [...]'}`,
    );
  }
  const problems: CatalogueProblem[] = [];
  const platforms: Platform[] = [];
  const seenNames = new Map<string, number>();
  const seenIds = new Map<string, number>();
  // The file's own families join the built-in ones (its own win by id).
  const own = readFamilies(data.families ?? []);
  problems.push(...own.problems);
  const expanded = expandFamilies(data.platforms, new Map([...builtinFamilies(), ...own.families]));
  problems.push(...expanded.problems);
  expanded.platforms.forEach((entry, index) => {
    if (entry === undefined) return;
    const label = entryLabel(entry, index);
    const entryProblems = validatePlatform(entry, label);
    if (entryProblems.length > 0) {
      problems.push(...entryProblems);
      return;
    }
    const platform = normalisePlatform(entry as PlatformSpec);
    const key = platform.name.toLowerCase();
    const earlier = seenNames.get(key);
    if (earlier !== undefined) {
      problems.push({
        platform: label,
        field: '/name',
        message: `duplicate name (entry #${earlier} has it too)`,
      });
      return;
    }
    const sameId = seenIds.get(platform.id);
    if (platform.id === '' || sameId !== undefined) {
      problems.push({
        platform: label,
        field: '/name',
        message:
          platform.id === ''
            ? 'the name and home give no id (Latin letters or digits)'
            : `its id "${platform.id}" is entry #${sameId}'s too: rename one`,
      });
      return;
    }
    seenNames.set(key, index);
    seenIds.set(platform.id, index);
    platforms.push(platform);
  });
  const borrowed = borrowedHostProblems(platforms);
  for (const found of borrowed.values()) problems.push(...found);

  const shields: Shield[] = [...extraShields];
  (data.shields ?? []).forEach((entry, index) => {
    const label = `shield ${entryLabel(entry, index)}`;
    const found = schemaProblems(ShieldSchema, entry, label);
    const spec = entry as ShieldSpec;
    if (found.length === 0 && !spec.headers && !spec.body) {
      found.push({
        platform: label,
        field: '',
        message: 'needs headers or body markers, or it would match every page',
      });
    }
    if (found.length > 0) problems.push(...found);
    else shields.push(normaliseShield(spec));
  });

  return {
    catalogue: freezeCatalogue({ platforms: platforms.filter((p) => !borrowed.has(p)), shields }),
    problems,
  };
}

/** The families of `docs` (later ones win by id), with a problem for each that is not one. */
export function readFamilies(docs: readonly unknown[]): {
  families: Map<string, FamilySpec>;
  problems: CatalogueProblem[];
} {
  const families = new Map<string, FamilySpec>();
  const problems: CatalogueProblem[] = [];
  docs.forEach((doc, index) => {
    if (Value.Check(FamilySchema, doc)) {
      families.set(doc.id, doc);
      return;
    }
    const first = [...Value.Errors(FamilySchema, doc)][0];
    const id = typeof (doc as { id?: unknown })?.id === 'string' ? (doc as { id: string }).id : `#${index}`;
    problems.push({
      platform: `family ${id}`,
      field: first?.path ?? '',
      message: first?.message ?? 'not a family',
    });
  });
  return { families, problems };
}

function entryLabel(entry: unknown, index: number): string {
  if (entry && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string') {
    const name = (entry as { name: string }).name.trim();
    if (name) return name;
  }
  return `#${index}`;
}

function schemaProblems(
  schema: Parameters<typeof Value.Errors>[0],
  entry: unknown,
  label: string,
): CatalogueProblem[] {
  const out: CatalogueProblem[] = [];
  // Most entries are valid: checking is a fraction of the allocations of listing no errors.
  if (Value.Check(schema, entry)) return out;
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, entry)) {
    // A bad signal yields one error per union member; say it once, plainly.
    const isSignal = /^\/detect\/(exists|missing)\/\d+(\/all\/\d+(\/not)?)?$/.test(error.path);
    const message = isSignal
      ? `must be exactly one of ${SIGNAL_KINDS.map((k) => `{${k}}`).join(', ')} with valid values`
      : error.path === '/category'
        ? `must be one of: ${CATEGORIES.join(', ')}`
        : /^\/otherHosts\/\d+$/.test(error.path)
          ? 'must be a host name: lower-case letters, digits, inner dashes and dots, no scheme, port or path (punycode for a non-Latin name)'
          : error.message;
    const key = `${error.path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (isSignal && [...seen].some((k) => k !== key && k.startsWith(`${error.path}/`))) continue;
    out.push({ platform: label, field: error.path, message });
  }
  return out;
}

function validatePlatform(entry: unknown, label: string): CatalogueProblem[] {
  const problems = schemaProblems(PlatformSchema, entry, label);
  if (problems.length > 0) return problems;
  const spec = entry as PlatformSpec;
  const add = (field: string, message: string) => problems.push({ platform: label, field, message });

  const home = inspectTemplate(spec.home, false);
  if (typeof home === 'string') add('/home', home);
  const profile = inspectTemplate(spec.profile);
  if (typeof profile === 'string') add('/profile', profile);
  const checkUrl = spec.check?.url;
  if (checkUrl !== undefined) {
    // A POST may carry the name in its body only.
    const inBody = spec.check?.body?.includes('{username}') ?? false;
    const shape = inspectTemplate(checkUrl, !inBody);
    if (typeof shape === 'string') add('/check/url', shape);
  }
  // A session goes to one host: a host that holds the name is a different one per name.
  if (spec.session === 'required' && fixedOrigin(checkUrl ?? spec.profile) === undefined)
    add(
      '/session',
      'needs a check URL with one host (not one holding {username}): a session goes to that host only',
    );
  if (spec.check?.body !== undefined && spec.check.method !== 'POST')
    add('/check/body', 'a body needs method POST');
  for (const [name] of Object.entries(spec.check?.headers ?? {})) {
    if (!/^[A-Za-z0-9-]+$/.test(name)) add(`/check/headers/${name}`, 'is not a valid header name');
  }
  for (const list of ['exists', 'missing'] as const) {
    spec.detect[list].forEach((signal, i) => {
      const problem = signalProblem(signal);
      if (problem) add(`/detect/${list}/${i}`, problem);
    });
  }
  for (const [field, value] of Object.entries(spec.extract ?? {})) {
    const rules: [string, ExtractRuleSpec][] =
      field === 'ids'
        ? Object.entries(value as Record<string, ExtractRuleSpec>).map(([n, r]) => [`ids/${n}`, r])
        : [[field, value as unknown as ExtractRuleSpec]];
    for (const [where, r] of rules) {
      const problem = extractRuleProblem(r);
      if (problem) add(`/extract/${where}`, problem);
    }
  }
  let rule: UsernameRule | undefined;
  try {
    rule = compileUsernameRule(spec.username);
  } catch (error) {
    add('/username/pattern', `does not compile: ${(error as Error).message}`);
  }
  if (rule) {
    for (const list of ['claimed', 'unclaimed'] as const) {
      spec.known[list].forEach((name, i) => {
        const why = ruleViolation(rule, name);
        if (why)
          add(
            `/known/${list}/${i}`,
            `${JSON.stringify(name)} breaks the platform's own username rule: ${why}`,
          );
      });
    }
  }
  const overlap = spec.known.claimed.filter((n) => spec.known.unclaimed.includes(n));
  if (overlap.length > 0) add('/known', `a name cannot be both claimed and unclaimed: ${overlap.join(', ')}`);
  if (spec.otherHosts) {
    const ownHosts = new Set(ownFixedHosts(specHostFields(spec)).map((held) => held.host));
    spec.otherHosts.forEach((host, i) => {
      if (host.startsWith('www.'))
        add(`/otherHosts/${i}`, 'give the host without "www." (a host is read the same with or without it)');
      else if (ownHosts.has(host))
        add(`/otherHosts/${i}`, `${host} is this entry's own check, profile or home host, not another one`);
    });
  }
  if (spec.enabled === false && !spec.disabledReason)
    add('/disabledReason', 'a disabled platform must say why');
  if (spec.category === 'nsfw' && spec.nsfw === false) add('/nsfw', 'a platform in category nsfw is nsfw');
  return problems;
}

/**
 * An entry whose other host is a host of another enabled entry (where that entry is checked,
 * shows its profiles or lives, or one of its own other hosts) claims a site that entry has:
 * two entries for one site. Each such entry is left out, with its problem naming the other;
 * two enabled entries claiming one other host are both left out.
 */
function borrowedHostProblems(platforms: readonly Platform[]): Map<Platform, CatalogueProblem[]> {
  const out = new Map<Platform, CatalogueProblem[]>();
  // Only a host some entry names as another can clash: the rest are not indexed.
  const named = new Set(platforms.flatMap((p) => p.otherHosts));
  if (named.size === 0) return out;
  const holders = new Map<string, Map<Platform, string[]>>();
  const hold = (host: string, p: Platform, role: string) => {
    if (!named.has(host)) return;
    const byEntry = holders.get(host) ?? new Map<Platform, string[]>();
    const roles = byEntry.get(p) ?? [];
    if (!roles.includes(role)) roles.push(role);
    byEntry.set(p, roles);
    holders.set(host, byEntry);
  };
  for (const p of platforms)
    for (const { host, role } of heldHosts({ ...p, checkUrl: p.check.url })) hold(host, p, role);
  for (const p of platforms) {
    const found: CatalogueProblem[] = [];
    p.otherHosts.forEach((host, i) => {
      const others = [...(holders.get(host) ?? [])].filter(([other]) => other !== p);
      if (others.length > 0)
        found.push({
          platform: p.name,
          field: `/otherHosts/${i}`,
          message: `${host} is ${others
            .map(
              ([other, roles]) =>
                `the ${andList(roles)} host of the enabled entry ${JSON.stringify(other.name)}`,
            )
            .join(', and ')}: one site would have two entries (disable one, or drop the host)`,
        });
    });
    if (found.length > 0) out.set(p, found);
  }
  return out;
}

/** `a`, `a and b`, `a, b and c`. */
function andList(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function signalProblem(signal: SignalSpec): string | undefined {
  if ('all' in signal) {
    if (signal.all.every((part) => 'not' in part))
      return 'a compound signal needs at least one part that is not a {not}';
    for (const part of signal.all) {
      // A page lacking the name says nothing of the account, and a check made without the
      // name would read it as lacking: only what a page shows may name the account.
      if ('not' in part && 'text' in part.not && part.not.text.includes(PLACEHOLDER))
        return `a {not} cannot hold ${PLACEHOLDER}: name the account only in what the page shows`;
      const problem = basicSignalProblem('not' in part ? part.not : part);
      if (problem) return problem;
    }
    return undefined;
  }
  return basicSignalProblem(signal);
}

/**
 * Only a text names the account: a regex is compiled once for every name (and its literal
 * markers read ahead of it, literal-prefilter.ts), and a redirect or header rule with the
 * placeholder would look for the letters `{username}` themselves.
 */
const NAMED_ELSEWHERE = `only a {"text"} signal can hold ${PLACEHOLDER}, filled with the name checked; name the account with one (e.g. {"text": "/u/${PLACEHOLDER}\\""})`;

/**
 * A name in a page matches only where a character no name holds stands on each side of it:
 * else `@{username}` finds "bob" in "@bobby", and the bare name finds a short or common
 * name (home, login) in a changed error page or a login wall, where a random control name
 * never is, so the control check does not catch the hit.
 */
const UNBOUNDED_NAME = `a text holding ${PLACEHOLDER} needs a character no name holds (white space, a quote, < > / and the like) right before and right after the name (e.g. {"text": "/u/${PLACEHOLDER}\\""}): else a longer name holding the name, or a common word of any page, matches`;

/** Whether every `{username}` in `text` has a character no name holds right before and right after it. */
function nameBounded(text: string): boolean {
  const parts = text.split(PLACEHOLDER);
  // The text before a name ends with a bound, and the text after it starts with one.
  return parts.every(
    (part, i) =>
      (i === 0 || boundsName([...part].at(0))) && (i === parts.length - 1 || boundsName([...part].at(-1))),
  );
}

function basicSignalProblem(signal: BasicSignalSpec): string | undefined {
  if ('text' in signal && signal.text.includes(PLACEHOLDER) && !nameBounded(signal.text))
    return UNBOUNDED_NAME;
  const elsewhere =
    'regex' in signal
      ? signal.regex
      : 'redirect' in signal
        ? signal.redirect
        : 'header' in signal
          ? signal.value
          : 'json' in signal && typeof signal.equals === 'string'
            ? signal.equals
            : undefined;
  if (elsewhere?.includes(PLACEHOLDER)) return NAMED_ELSEWHERE;
  if ('regex' in signal) {
    const problem = regexProblem(signal.regex, signal.flags);
    if (typeof problem === 'string') return problem;
  }
  if ('json' in signal && signal.json.split('.').some((seg) => seg === ''))
    return 'json path has an empty segment';
  if ('header' in signal && !/^[A-Za-z0-9-]+$/.test(signal.header)) return 'is not a valid header name';
  return undefined;
}

/** What is wrong with an extract rule beyond its shape, or undefined. */
function extractRuleProblem(rule: ExtractRuleSpec): string | undefined {
  if ('json' in rule && rule.json.split('.').some((seg) => seg === ''))
    return 'json path has an empty segment';
  if ('regex' in rule) {
    const re = regexProblem(rule.regex, rule.flags);
    if (typeof re === 'string') return re;
    if (!re.hasGroup('value')) return 'regex needs a named group `value` (?<value>…)';
  }
  return undefined;
}

/** The compiled regex, or why the linear-time engine refuses it (the message names the pattern). */
function regexProblem(source: string, flags: string | undefined): LinearRegex | string {
  try {
    return LinearRegex.checked(source, flags);
  } catch (error) {
    return (error as Error).message;
  }
}
