/**
 * Reads a hit's profile details from the answer the check already read: no
 * extra request. Two sources, the platform's own `extract` rules first (JSON
 * paths, meta names, regexes with a `value` group), then generic ones most
 * sites serve: Open Graph and Twitter-card meta tags, JSON-LD Person and
 * ProfilePage, rel="me" links, the canonical link, the title. Every value is
 * cleaned of markup and capped; a URL is kept only when it is http(s). Pure.
 */
import type { ExtractRule, Platform } from '../../catalogue/platform.js';
import { walkTags } from './html-scan.js';
import { ownCopy } from './own-copy.js';
import {
  PROFILE_COUNT_FIELDS,
  PROFILE_LIMITS,
  PROFILE_TEXT_FIELDS,
  PROFILE_URL_FIELDS,
  type Profile,
  type ProfileField,
} from './profile.js';
import type { ResponseView } from './response-view.js';

/**
 * How far into a hit's answer profile details are looked for (characters), and so
 * how far a hit reads on once it is decided (pipeline/exchange.ts): meta tags, the title, the
 * canonical link and JSON-LD sit in a page's first few kilobytes, and a JSON
 * answer, which must be whole to be parsed, is far smaller than this for a
 * profile. An answer cut here keeps what lies before the cut only (a JSON one
 * then gives nothing).
 */
export const PROFILE_READ_CHARS = 256 * 1024;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8}|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return codePoint(Number.parseInt(lower.slice(2), 16)) ?? whole;
    if (lower.startsWith('#')) return codePoint(Number(lower.slice(1))) ?? whole;
    return ENTITIES[lower] ?? whole;
  });
}

function codePoint(n: number): string | undefined {
  if (!Number.isInteger(n) || n <= 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
  return String.fromCodePoint(n);
}

/**
 * Plain text: no tags, no control characters, one space between words, at most `max` characters.
 * Every pattern here matches in one pass (no nested or overlapping repeats): `raw` may be a page's whole attribute.
 */
export function cleanText(raw: unknown, max: number): string | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  let text = String(raw);
  // Twice: entities may hide tags (&lt;script&gt;), which are then removed as tags.
  for (let i = 0; i < 2; i++) text = decodeEntities(text.replace(/<[^>]*>?/g, ' ')).replace(/<[^>]*>?/g, ' ');
  text = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  // Kept in the profile: a copy, or the whole body would be kept with it.
  return ownCopy(text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);
}

/** An absolute http(s) URL (relative ones resolved against `base`), or undefined. */
export function cleanUrl(raw: unknown, base: string): string | undefined {
  const text = cleanText(raw, PROFILE_LIMITS.url);
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}

/**
 * A website as people type it into a profile form ("alice.dev/blog") is a host,
 * not a path of the page it sits on: it gets https://.
 */
function withScheme(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  // Within a URL's length only: the pattern is anchored and linear, but a profile may hold any text here.
  return text.length <= PROFILE_LIMITS.url &&
    /^(?:[a-z0-9-]+\.)+[a-z]{2,63}(?::\d{1,5})?(?:[/?#]|$)/i.test(text)
    ? `https://${text}`
    : raw;
}

/** A count as pages write it: 1234, "1,234", "1.2k", "3M". */
export function cleanCount(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) && raw >= 0 ? Math.round(raw) : undefined;
  const text = cleanText(raw, 40)
    ?.toLowerCase()
    .replace(/[\s,_]/g, '');
  const match = text ? /^(\d+(?:\.\d+)?)([km]?)$/.exec(text) : null;
  if (!match) return undefined;
  const n = Number(match[1]) * (match[2] === 'k' ? 1e3 : match[2] === 'm' ? 1e6 : 1);
  return Number.isFinite(n) ? Math.round(n) : undefined;
}

/** What the generic rules read of a page, gathered in one walk over its tags. */
interface PageTags {
  /** `<meta>` contents by their name or property (lower-case), first wins. */
  readonly meta: Map<string, string>;
  /** The hrefs of `<link>` and `<a>` tags with rel="me". */
  readonly meLinks: string[];
  /** The texts of the JSON-LD scripts, in page order. */
  readonly jsonLd: string[];
  /** The text of the first `<title>`. */
  readonly title: string | undefined;
}

const PROFILE_TAGS: ReadonlySet<string> = new Set(['meta', 'link', 'a', 'script', 'title']);

function readTags(html: string): PageTags {
  const meta = new Map<string, string>();
  const meLinks: string[] = [];
  const jsonLd: string[] = [];
  let title: string | undefined;
  let titleSeen = false;
  walkTags(html, {
    names: PROFILE_TAGS,
    onTag: ({ name, attributes }) => {
      if (name === 'meta') {
        const key = (
          attributes.get('property') ??
          attributes.get('name') ??
          attributes.get('itemprop')
        )?.toLowerCase();
        const content = attributes.get('content');
        if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
      } else if (name === 'link' || name === 'a') {
        const href = attributes.get('href');
        if (href && (attributes.get('rel') ?? '').toLowerCase().split(/\s+/).includes('me'))
          meLinks.push(href);
      } else if (name === 'script') {
        if (attributes.get('type')?.trim().toLowerCase().startsWith('application/ld+json')) return 'text';
      } else if (name === 'title' && !titleSeen) {
        titleSeen = true;
        return 'text';
      }
      return undefined;
    },
    onText: ({ name }, text) => {
      if (name === 'title') title = text;
      else jsonLd.push(text);
      return undefined;
    },
  });
  return { meta, meLinks, jsonLd, title };
}

type Json = unknown;

/** Nodes of one JSON-LD script looked at for a Person, at most. */
const JSON_LD_NODES = 50;

/** The first JSON-LD Person (or a ProfilePage's): scripts are parsed in page order until one holds one. */
function jsonLdPerson(scripts: readonly string[]): Record<string, Json> | undefined {
  for (const script of scripts) {
    let data: Json;
    try {
      data = JSON.parse(script);
    } catch {
      continue; // broken JSON-LD is not an error of ours
    }
    const queue: Json[] = [data];
    for (let seen = 0; seen < queue.length && seen < JSON_LD_NODES; seen++) {
      const node = queue[seen];
      if (Array.isArray(node)) {
        // Only as many as can still be looked at: a page's array may hold a hundred thousand.
        for (const item of node.slice(0, Math.max(0, JSON_LD_NODES - queue.length))) queue.push(item);
      } else if (node && typeof node === 'object') {
        const record = node as Record<string, Json>;
        const type = record['@type'];
        const types = Array.isArray(type) ? type : [type];
        if (types.includes('Person')) return record;
        if (record.mainEntity) queue.push(record.mainEntity);
        if (record['@graph']) queue.push(record['@graph']);
      }
    }
  }
  return undefined;
}

/** The value at a dot path (array indexes as numbers). */
function atPath(data: Json, path: readonly string[]): Json {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, Json>)[segment];
  }
  return node;
}

interface Parsed {
  readonly html: string;
  readonly json: Json;
  readonly tags: PageTags;
  /** What regex rules read: the page, or the JSON answer serialised once (on first use). */
  readonly text: () => string;
}

const NO_TAGS: PageTags = { meta: new Map(), meLinks: [], jsonLd: [], title: undefined };

/** The JSON answer as one text; '' when it nests too deep to be written back (JSON.stringify recurses). */
function serialised(json: Json): string {
  try {
    return JSON.stringify(json);
  } catch {
    return '';
  }
}

function parse(view: ResponseView): Parsed {
  const body = view.body.length > PROFILE_READ_CHARS ? view.body.slice(0, PROFILE_READ_CHARS) : view.body;
  const type = view.headers['content-type'] ?? '';
  let json: Json;
  if (/json/i.test(type) || /^\s*[[{]/.test(body)) {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  const html = json === undefined ? body : '';
  let text: string | undefined;
  return {
    html,
    json,
    tags: html ? readTags(html) : NO_TAGS,
    text: () => {
      text ??= html || (json === undefined ? '' : serialised(json));
      return text;
    },
  };
}

function ruleValue(rule: ExtractRule, parsed: Parsed): Json {
  switch (rule.kind) {
    case 'json':
      return parsed.json === undefined ? undefined : atPath(parsed.json, rule.path);
    case 'meta':
      return parsed.tags.meta.get(rule.name);
    case 'regex': {
      const match = rule.re.exec(parsed.text());
      return match?.groups?.value;
    }
  }
}

/** Generic candidates per field, in order of trust. */
function genericValues(parsed: Parsed): Partial<Record<ProfileField, Json>> & { links: Json[] } {
  const { meta, jsonLd, meLinks, title } = parsed.tags;
  const person = jsonLdPerson(jsonLd);
  const image = person?.image;
  const sameAs = person?.sameAs;
  const out: Partial<Record<ProfileField, Json>> & { links: Json[] } = {
    fullName:
      person?.name ?? meta.get('profile:username') ?? meta.get('og:title') ?? meta.get('twitter:title'),
    bio:
      person?.description ??
      meta.get('og:description') ??
      meta.get('twitter:description') ??
      meta.get('description'),
    avatarUrl:
      (typeof image === 'object' && image !== null ? (image as Record<string, Json>).url : image) ??
      meta.get('og:image') ??
      meta.get('twitter:image'),
    location:
      typeof person?.homeLocation === 'object' && person.homeLocation !== null
        ? (person.homeLocation as Record<string, Json>).name
        : person?.homeLocation,
    website: person?.url,
    links: [...(Array.isArray(sameAs) ? sameAs : sameAs ? [sameAs] : []), ...meLinks],
  };
  if (out.fullName === undefined && title) out.fullName = title;
  return out;
}

/**
 * The profile of a hit, or undefined when the answer holds nothing worth keeping.
 * `view.url` resolves relative URLs; the profile's own address is never a link.
 */
export function extractProfile(platform: Pick<Platform, 'extract'>, view: ResponseView): Profile | undefined {
  if (view.body === '') return undefined;
  const parsed = parse(view);
  const own: Partial<Record<ProfileField, Json>> = {};
  for (const [field, rule] of Object.entries(platform.extract?.fields ?? {}))
    own[field as ProfileField] = ruleValue(rule as ExtractRule, parsed);
  const generic = genericValues(parsed);
  const pick = (field: ProfileField) => own[field] ?? generic[field];

  const profile: Record<string, unknown> = {};
  for (const field of PROFILE_TEXT_FIELDS) {
    const value = cleanText(pick(field), PROFILE_LIMITS[field]);
    if (value !== undefined) profile[field] = value;
  }
  for (const field of PROFILE_URL_FIELDS) {
    const raw = pick(field);
    const value = cleanUrl(field === 'website' ? withScheme(raw) : raw, view.url);
    if (value !== undefined) profile[field] = value;
  }
  for (const field of PROFILE_COUNT_FIELDS) {
    const value = cleanCount(pick(field));
    if (value !== undefined) profile[field] = value;
  }
  const self = cleanUrl(view.url, view.url);
  const links = new Set<string>();
  for (const raw of [profile.website, ...generic.links]) {
    if (links.size >= PROFILE_LIMITS.links) break;
    const url = cleanUrl(raw, view.url);
    if (url && url !== self) links.add(url);
  }
  if (links.size > 0) profile.links = [...links];
  const ids: Record<string, string> = {};
  for (const [name, rule] of Object.entries(platform.extract?.ids ?? {})) {
    const value = cleanText(ruleValue(rule, parsed), PROFILE_LIMITS.id);
    if (value !== undefined && Object.keys(ids).length < PROFILE_LIMITS.ids) ids[name] = value;
  }
  if (Object.keys(ids).length > 0) profile.ids = ids;
  return Object.keys(profile).length > 0 ? (profile as Profile) : undefined;
}
