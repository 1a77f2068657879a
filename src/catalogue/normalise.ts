/**
 * Turns catalogue entries that passed validation (loader.ts) into frozen
 * `Platform`s and `Shield`s. Knows nothing of the schema validator, so the
 * built-in catalogue, proved valid by its test (builtin.test.ts), loads without it.
 */
import type { Category } from './categories.js';
import { freezeCatalogue } from './freeze.js';
import { LinearRegex } from './linear-regex.js';
import {
  type BasicSignal,
  type Catalogue,
  type CheckRequestSpec,
  type ExtractRule,
  type ExtractRules,
  type Platform,
  platformId,
  type Shield,
  type Signal,
  type SignalPart,
} from './platform.js';
import { PROFILE_FIELDS, type ProfileField } from './profile-fields.js';
import type { BasicSignalSpec, ExtractRuleSpec, PlatformSpec, ShieldSpec, SignalSpec } from './schema.js';
import { PLACEHOLDER } from './template.js';
import { compileUsernameRule } from './username-rule.js';

/**
 * A document of valid entries as a frozen catalogue, entries in order; nothing is
 * checked (loadCatalogue checks, and leaves invalid entries out).
 */
export function normaliseCatalogue(doc: {
  readonly platforms: readonly unknown[];
  readonly shields?: readonly unknown[] | undefined;
}): Catalogue {
  return freezeCatalogue({
    platforms: doc.platforms.map((entry) => normalisePlatform(entry as PlatformSpec)),
    shields: (doc.shields ?? []).map((entry) => normaliseShield(entry as ShieldSpec)),
  });
}

export function normaliseShield(spec: ShieldSpec): Shield {
  return {
    name: spec.name,
    reason: spec.reason,
    status: spec.status ? [...spec.status] : undefined,
    headers: Object.entries(spec.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v] as const),
    body: [...(spec.body ?? [])],
    passedByScript: spec.passedByScript ?? false,
  };
}

type ExtractSpec = Partial<Record<ProfileField, ExtractRuleSpec>> & { ids?: Record<string, ExtractRuleSpec> };

function normaliseExtractRule(spec: ExtractRuleSpec): ExtractRule {
  if ('json' in spec) return { kind: 'json', path: spec.json.split('.') };
  if ('meta' in spec) return { kind: 'meta', name: spec.meta.toLowerCase() };
  return { kind: 'regex', re: new LinearRegex(spec.regex, spec.flags) };
}

function normaliseExtract(spec: ExtractSpec): ExtractRules {
  const fields: Partial<Record<ProfileField, ExtractRule>> = {};
  for (const field of PROFILE_FIELDS) {
    const rule = spec[field];
    if (rule) fields[field] = normaliseExtractRule(rule);
  }
  const ids: Record<string, ExtractRule> = {};
  for (const [name, rule] of Object.entries(spec.ids ?? {})) ids[name] = normaliseExtractRule(rule);
  return { fields, ids };
}

function normaliseSignal(spec: SignalSpec): Signal {
  if ('all' in spec)
    return {
      kind: 'all',
      parts: spec.all.map(
        (part): SignalPart =>
          'not' in part ? { kind: 'not', signal: normaliseBasic(part.not) } : normaliseBasic(part),
      ),
    };
  return normaliseBasic(spec);
}

function normaliseBasic(spec: BasicSignalSpec): BasicSignal {
  if ('status' in spec) return { kind: 'status', codes: [...spec.status] };
  if ('text' in spec)
    return spec.text.includes(PLACEHOLDER)
      ? { kind: 'name', text: spec.text, parts: spec.text.split(PLACEHOLDER) }
      : { kind: 'text', text: spec.text };
  if ('regex' in spec) return { kind: 'regex', re: new LinearRegex(spec.regex, spec.flags) };
  if ('redirect' in spec) return { kind: 'redirect', target: spec.redirect };
  if ('json' in spec) {
    const path = spec.json.split('.');
    return 'equals' in spec ? { kind: 'json', path, equals: spec.equals ?? null } : { kind: 'json', path };
  }
  return {
    kind: 'header',
    name: spec.header.toLowerCase(),
    ...(spec.value === undefined ? {} : { value: spec.value }),
  };
}

/** The other hosts of the many entries that have none: one shared, frozen list. */
const NO_HOSTS: readonly string[] = Object.freeze([]);

/** Where an entry's check goes: its own check URL, else its profile page. */
export function specCheckUrl(spec: Pick<PlatformSpec, 'check' | 'profile'>): string {
  return spec.check?.url ?? spec.profile;
}

export function normalisePlatform(spec: PlatformSpec): Platform {
  const check: CheckRequestSpec = {
    url: specCheckUrl(spec),
    method: spec.check?.method ?? 'GET',
    headers: { ...(spec.check?.headers ?? {}) },
    body: spec.check?.body,
    bodyType: spec.check?.bodyType ?? 'json',
    redirects: spec.check?.redirects ?? 'manual',
  };
  return {
    id: platformId(spec.name, spec.home),
    name: spec.name.trim(),
    category: spec.category as Category,
    home: spec.home,
    profile: spec.profile,
    check,
    detect: {
      exists: spec.detect.exists.map(normaliseSignal),
      missing: spec.detect.missing.map(normaliseSignal),
    },
    username: compileUsernameRule(spec.username),
    known: { claimed: [...spec.known.claimed], unclaimed: [...spec.known.unclaimed] },
    tags: [...(spec.tags ?? [])],
    nsfw: spec.nsfw ?? spec.category === 'nsfw',
    onRequest: spec.onRequest ?? false,
    enabled: spec.enabled ?? true,
    disabledReason: spec.disabledReason,
    otherHosts: spec.otherHosts ? [...spec.otherHosts] : NO_HOSTS,
    budget: spec.budget ? { perSecond: spec.budget.perSecond, burst: spec.budget.burst ?? 1 } : undefined,
    transport: spec.transport ?? 'http',
    session: spec.session ?? 'optional',
    extract: spec.extract ? normaliseExtract(spec.extract as ExtractSpec) : undefined,
  };
}
