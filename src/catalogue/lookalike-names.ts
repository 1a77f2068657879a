/**
 * Lookalike names: the names someone could register to pass for a given one
 * (brand protection). Pure and deterministic: the same name and cap always give
 * the same list, in the same order. `platformsForVariant` says which platforms
 * a variant is worth checking on, by their own username rules, so a variant
 * never costs a request on a platform that could not hold it.
 */
import type { Platform } from './platform.js';
import { ruleViolation, usernameProblem } from './username-rule.js';

export const VARIANT_KINDS = ['separator', 'swap', 'double', 'drop', 'affix', 'homoglyph'] as const;
export type VariantKind = (typeof VARIANT_KINDS)[number];

export interface Variant {
  readonly username: string;
  readonly kind: VariantKind;
}

const SEPARATORS = ['.', '_', '-', ''] as const;

/** Look-alike characters and character pairs, both ways (0/o, 1/l/i, rn/m). */
const SWAPS: readonly (readonly [string, string])[] = [
  ['o', '0'],
  ['0', 'o'],
  ['l', '1'],
  ['i', '1'],
  ['1', 'l'],
  ['1', 'i'],
  ['l', 'i'],
  ['i', 'l'],
  ['rn', 'm'],
  ['m', 'rn'],
];

const PREFIXES = ['real', 'official', 'the', '_'] as const;
const SUFFIXES = ['official', 'real', '_', '1', '01', '123'] as const;

/** Latin letters and the Cyrillic or Greek letters drawn the same. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  a: '\u0430',
  c: '\u0441',
  e: '\u0435',
  i: '\u0456',
  j: '\u0458',
  o: '\u043e',
  p: '\u0440',
  s: '\u0455',
  x: '\u0445',
  y: '\u0443',
};

/** The name's words: split at separators, lower-to-upper case changes and letter-digit changes. */
function words(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])|([0-9])([A-Za-z])/g, (_m, a, b, c, d) =>
      a !== undefined ? `${a} ${b}` : `${c} ${d}`,
    )
    .split(/[\s._-]+/)
    .filter(Boolean);
}

function separatorVariants(name: string): string[] {
  const parts = words(name);
  if (parts.length < 2) return [];
  return SEPARATORS.map((s) => parts.join(s));
}

function swapVariants(name: string): string[] {
  const out: string[] = [];
  for (const [from, to] of SWAPS) {
    for (let at = name.indexOf(from); at !== -1; at = name.indexOf(from, at + 1))
      out.push(name.slice(0, at) + to + name.slice(at + from.length));
  }
  return out;
}

function doubledVariants(name: string): string[] {
  const chars = [...name];
  const out: string[] = [];
  for (const [i, ch] of chars.entries()) {
    if (!/[\p{L}\p{N}]/u.test(ch) || chars[i + 1] === ch) continue;
    out.push([...chars.slice(0, i + 1), ch, ...chars.slice(i + 1)].join(''));
  }
  return out;
}

function droppedVariants(name: string): string[] {
  const chars = [...name];
  if (chars.length < 3) return [];
  return chars.map((_, i) => [...chars.slice(0, i), ...chars.slice(i + 1)].join(''));
}

function affixVariants(name: string): string[] {
  return [
    ...PREFIXES.flatMap((p) => (p === '_' ? [`_${name}`] : [`${p}${name}`, `${p}_${name}`])),
    ...SUFFIXES.flatMap((s) => (/^[a-z]+$/.test(s) ? [`${name}${s}`, `${name}_${s}`] : [`${name}${s}`])),
  ];
}

function homoglyphVariants(name: string): string[] {
  const chars = [...name];
  const out: string[] = [];
  for (const [i, ch] of chars.entries()) {
    const glyph = HOMOGLYPHS[ch.toLowerCase()];
    if (glyph) out.push([...chars.slice(0, i), glyph, ...chars.slice(i + 1)].join(''));
  }
  return out;
}

const GENERATORS: Readonly<Record<VariantKind, (name: string) => string[]>> = {
  separator: separatorVariants,
  swap: swapVariants,
  double: doubledVariants,
  drop: droppedVariants,
  affix: affixVariants,
  homoglyph: homoglyphVariants,
};

/**
 * Up to `max` names that look like `name`, never `name` itself (nor the same
 * name in another case), each once, each a username some platform could take.
 * Kinds take turns (one separator variant, one swap, one doubled letter, ...)
 * so a small cap still holds every kind of impersonation.
 */
export function lookalikeNames(name: string, max: number): Variant[] {
  const seen = new Set([name.toLowerCase()]);
  const queues = VARIANT_KINDS.map((kind) => ({ kind, names: GENERATORS[kind](name) }));
  const out: Variant[] = [];
  // Bounded: every round takes at least one name from each kind that has any left.
  while (out.length < max) {
    let left = false;
    for (const { kind, names } of queues) {
      if (out.length >= max) break;
      // Each kind gives its next name that is new and acceptable, skipping those that are not.
      while (names.length > 0) {
        const username = names.shift()!;
        const key = username.toLowerCase();
        if (seen.has(key) || usernameProblem(username) !== undefined) continue;
        seen.add(key);
        out.push({ username, kind });
        break;
      }
      if (names.length > 0) left = true;
    }
    if (!left) break;
  }
  return out;
}

/**
 * The platforms among `platforms` worth checking `variant` on: those whose
 * username rule accepts it. A homoglyph (a non-Latin letter) is checked only
 * where a rule says which characters are allowed and admits it: a platform
 * that states no rule is not assumed to take Cyrillic names.
 */
export function platformsForVariant<P extends Pick<Platform, 'username'>>(
  variant: Variant,
  platforms: readonly P[],
): P[] {
  return platforms.filter(
    (p) =>
      ruleViolation(p.username, variant.username) === undefined &&
      (variant.kind !== 'homoglyph' || p.username.pattern !== undefined),
  );
}
