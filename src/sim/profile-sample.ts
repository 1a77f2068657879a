/**
 * What a simulated profile says about its owner: for a platform with `extract`
 * rules, a plausible value for every ruled field, placed where the rule reads
 * it (a JSON member, a meta tag, a text its regex matches). Pure and
 * deterministic; synthesize.ts adds these to an exists answer.
 */
import RandExp from 'randexp';
import type { LinearRegex } from '../catalogue/linear-regex.js';
import type { ExtractRule, Platform } from '../catalogue/platform.js';
import type { ProfileField } from '../catalogue/profile-fields.js';

/** Where the sample values go in the answer. */
export interface ProfileSample {
  /** JSON members by path, for JSON answers. */
  readonly json: readonly (readonly [readonly string[], unknown])[];
  /** `<meta>` tags by name, for HTML pages. */
  readonly meta: readonly (readonly [string, string])[];
  /** Texts the regex rules match, for HTML pages. */
  readonly texts: readonly string[];
}

/** The value a page gives for each field, as an API would (markup in the bio, counts as numbers). */
function sampleValue(field: ProfileField | 'id', host: string): string | number {
  switch (field) {
    case 'fullName':
      return 'Ada Sample';
    case 'bio':
      return '<p>Builds small tools &amp; writes about them.</p>';
    case 'location':
      return 'Lisbon, Portugal';
    case 'createdAt':
      return '2016-04-12T08:30:00Z';
    case 'avatarUrl':
      return `https://${host}/avatars/ada-sample.png`;
    case 'website':
      return 'https://ada-sample.example/';
    case 'followers':
      return 1234;
    case 'following':
      return 56;
    case 'id':
      return '4815162342';
  }
}

/** Other ways pages write a field, for regexes that accept only those (a date as epoch seconds). */
const ALTERNATIVES: Partial<Record<ProfileField | 'id', readonly string[]>> = {
  createdAt: ['1460449800', 'April 12, 2016'],
};

/** The same value as a page prints it in text: no markup, counts with a thousands separator. */
function printed(value: string | number): string {
  if (typeof value === 'number') return value.toLocaleString('en-US');
  return value.replace(/<[^>]*>/g, '').replace(/&amp;/g, '&');
}

/** The source span of the named group `value` in a regex source: [start of `(?<value>`, end after `)`]. */
function valueGroup(source: string): [number, number] | undefined {
  const start = source.indexOf('(?<value>');
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') {
      // Skip a character class: its brackets and parentheses are literal.
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return [start, i + 1];
  }
  return undefined;
}

interface CharRange {
  add(low: number, high: number): unknown;
  subtract(low: number, high: number): unknown;
}

/** A deterministic sampler of `source`: the fewest repetitions, and 0-9a-z wherever the pattern allows any character. */
function sampler(source: string, flags: string): RandExp {
  const gen = new RandExp(new RegExp(source, flags.replace(/[gy]/g, '')));
  gen.max = 3;
  gen.randInt = (min: number) => min;
  // RandExp has the property, its type declarations do not.
  const range = (gen as unknown as { defaultRange: CharRange }).defaultRange;
  range.subtract(0, 0x10ffff);
  range.add(0x30, 0x39); // 0-9
  range.add(0x61, 0x7a); // a-z
  return gen;
}

/**
 * A text the rule's regex matches, its `value` group holding the first of
 * `values` the group's pattern accepts, otherwise a sample of the group.
 */
function regexSample(re: LinearRegex, values: readonly string[]): string {
  const span = valueGroup(re.source);
  const flags = re.flags.replace(/[gy]/g, '');
  if (span) {
    const inner = re.source.slice(span[0] + '(?<value>'.length, span[1] - 1);
    let whole: RegExp | undefined;
    try {
      whole = new RegExp(`^(?:${inner})$`, flags);
    } catch {
      whole = undefined; // e.g. RE2 syntax JavaScript does not read
    }
    for (const value of whole ? values : []) {
      if (!whole?.test(value)) continue;
      const literal = value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      const source = `${re.source.slice(0, span[0])}(?<value>${literal})${re.source.slice(span[1])}`;
      const text = sampler(source, flags.replace('i', '')).gen();
      if (re.exec(text)?.groups?.value === value) return text;
    }
  }
  return sampler(re.source, flags).gen();
}

/** The sample profile of `platform`'s account, for an answer to `requestUrl`; undefined without rules. */
export function profileSample(
  platform: Pick<Platform, 'extract'>,
  requestUrl: string,
): ProfileSample | undefined {
  const extract = platform.extract;
  if (!extract) return undefined;
  const host = new URL(requestUrl).host;
  const json: [readonly string[], unknown][] = [];
  const meta: [string, string][] = [];
  const texts: string[] = [];
  const place = (rule: ExtractRule, field: ProfileField | 'id', value: string | number) => {
    switch (rule.kind) {
      case 'json':
        json.push([rule.path, value]);
        return;
      case 'meta':
        meta.push([rule.name, printed(value)]);
        return;
      case 'regex':
        texts.push(regexSample(rule.re, [printed(value), String(value), ...(ALTERNATIVES[field] ?? [])]));
        return;
    }
  };
  for (const [field, rule] of Object.entries(extract.fields))
    if (rule) place(rule, field as ProfileField, sampleValue(field as ProfileField, host));
  for (const rule of Object.values(extract.ids)) place(rule, 'id', sampleValue('id', host));
  return { json, meta, texts };
}
