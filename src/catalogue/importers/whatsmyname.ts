/**
 * Imports a WhatsMyName document (`wmn-data.json`: `{ sites: [...] }`).
 *
 * WhatsMyName sends one request without following redirects (a GET of
 * `uri_check`, or a POST of `post_body` when there is one) and reads it so:
 * found when the status is `e_code` AND the body contains `e_string`; not found
 * when the status is `m_code` AND the body contains `m_string` (empty = any
 * body); anything else is inconclusive. Our `exists` is ALL-of, so the found
 * rule maps exactly. For the missing rule we keep the half that cannot be mistaken:
 * - `m_code` equals `e_code`: only `m_string` tells them apart; with no `m_string`,
 *   the page lacking `e_string` does, said as the compound signal
 *   `{all: [{status: [m_code]}, {not: {text: e_string}}]}` (Blogmarks);
 * - `m_code` is a redirect or a client error (404, 410, 302…): the status alone,
 *   as the found rule needs another status anyway;
 * - `m_code` is a success, access or server status (200, 403, 500…): `m_string`
 *   alone, as such a status is also what a broken or shielded site sends.
 */
import { type Category, isCategory } from '../categories.js';
import { transportForTags } from '../defence-tags.js';
import type { CheckSpec, SignalSpec } from '../schema.js';
import { assembleImport, type Conversion, type ConvertedEntry, rejectEntry } from './assemble.js';
import { finishEntry } from './finish-entry.js';
import { isRecord, isStringList, isStringRecord } from './shape.js';
import { isHttpStatus, isNotFoundLike } from './status-codes.js';
import { escapeRegex } from './text-signals.js';
import type { ImportResult } from './types.js';
import { fixedAddressTemplate, hasPlaceholder, homeOf, replacePlaceholder } from './url-template.js';

const ACCOUNT = '{account}';

/** WhatsMyName categories that are not ours by the same name. */
const CATEGORY_ALIASES: Readonly<Record<string, Category>> = { 'xx NSFW xx': 'nsfw', search: 'misc' };

interface WmnSite {
  readonly name: string;
  readonly uri_check: string;
  readonly uri_pretty?: string;
  readonly post_body?: string;
  readonly headers?: Record<string, string>;
  readonly strip_bad_char?: string;
  readonly e_code: number;
  readonly e_string: string;
  readonly m_code: number;
  readonly m_string: string;
  readonly known: readonly string[];
  readonly cat: string;
  readonly valid?: boolean;
  readonly protection?: readonly string[];
}

export function looksLikeWhatsMyName(doc: unknown): boolean {
  if (!isRecord(doc) || !Array.isArray(doc.sites)) return false;
  return doc.sites.length === 0 || doc.sites.some((s) => isRecord(s) && typeof s.uri_check === 'string');
}

export function importWhatsMyName(doc: unknown): ImportResult {
  const sites = isRecord(doc) && Array.isArray(doc.sites) ? doc.sites : [];
  const entries: ConvertedEntry[] = sites.map((site, index) => ({
    name: isRecord(site) && typeof site.name === 'string' && site.name.trim() ? site.name : `#${index}`,
    conversion: convertSite(site),
  }));
  return assembleImport('whatsmyname', entries);
}

function convertSite(raw: unknown): Conversion {
  const malformed = shapeProblem(raw);
  if (malformed) return rejectEntry(`malformed entry: ${malformed}`);
  const site = raw as WmnSite;
  if (site.valid === false) return rejectEntry('disabled upstream (valid: false)');

  const detect = detectRules(site);
  if ('reason' in detect) return rejectEntry(detect.reason);

  const method = site.post_body ? 'POST' : 'GET';
  const checkUrl = replacePlaceholder(site.uri_check, ACCOUNT, 'uri_check');
  if (!checkUrl.ok) return rejectEntry(checkUrl.reason);
  if (method === 'GET' && !hasPlaceholder(checkUrl.value)) {
    return rejectEntry('uri_check has no {account} placeholder');
  }

  const notes: string[] = [];
  const pretty =
    site.uri_pretty === undefined ? undefined : replacePlaceholder(site.uri_pretty, ACCOUNT, 'uri_pretty');
  if (pretty && !pretty.ok) return rejectEntry(pretty.reason);
  let profile: string;
  if (pretty && hasPlaceholder(pretty.value)) profile = pretty.value;
  else if (hasPlaceholder(checkUrl.value)) profile = checkUrl.value;
  else {
    const page = pretty?.value ?? homeOf(checkUrl.value);
    if (!page) return rejectEntry('no profile address: uri_check is fixed and uri_pretty is missing');
    profile = fixedAddressTemplate(page);
    notes.push(`No profile page upstream; the link opens ${page}.`);
  }
  const home = homeOf(profile) ?? homeOf(checkUrl.value);
  if (!home) return rejectEntry(`cannot tell the home page from ${profile}`);

  const check: CheckSpec = {};
  const checkTemplate = hasPlaceholder(checkUrl.value)
    ? checkUrl.value
    : fixedAddressTemplate(checkUrl.value);
  if (checkTemplate !== profile) check.url = checkTemplate;
  if (method === 'POST') {
    const body = replacePlaceholder(site.post_body!, ACCOUNT, 'post_body');
    if (!body.ok) return rejectEntry(body.reason);
    check.method = 'POST';
    check.body = body.value;
    check.bodyType = bodyTypeOf(site.headers);
  }
  if (site.headers && Object.keys(site.headers).length > 0) check.headers = { ...site.headers };

  // WhatsMyName deletes these characters from the name before checking; we refuse
  // such names instead of silently checking a different account.
  const strip = site.strip_bad_char ?? '';
  const pattern = strip ? `^[^${[...strip].map(escapeInClass).join('')}]+$` : undefined;
  const claimed = site.known.map((name) => [...name].filter((ch) => !strip.includes(ch)).join(''));
  if (strip) {
    notes.push(
      `WhatsMyName removes ${JSON.stringify(strip)} from names before checking; such names are refused here.`,
    );
  }
  if (site.protection?.length) {
    notes.push(`Upstream notes anti-bot protection: ${site.protection.join(', ')}.`);
  }
  const reach = transportForTags('whatsmyname', site.protection ?? [], { check, detect });
  if (reach.note) notes.push(reach.note);

  const category = categoryOf(site.cat);
  // A category we have no equal for (search, or one added upstream later) stays visible as a tag.
  const tags = category === site.cat || site.cat === 'xx NSFW xx' ? [] : [site.cat];

  return finishEntry({
    name: site.name,
    category,
    home,
    profile,
    check,
    detect,
    pattern,
    claimed,
    tags,
    notes,
    transport: reach.transport,
  });
}

function detectRules(site: WmnSite): { exists: SignalSpec[]; missing: SignalSpec[] } | { reason: string } {
  const exists: SignalSpec[] = [{ status: [site.e_code] }];
  if (site.e_string) exists.push({ text: site.e_string });
  if (site.m_code === site.e_code) {
    if (!site.m_string) {
      if (!site.e_string) {
        return {
          reason: 'no way to tell a missing account: m_code equals e_code and both strings are empty',
        };
      }
      return { exists, missing: [{ all: [{ status: [site.m_code] }, { not: { text: site.e_string } }] }] };
    }
    if (site.e_string.includes(site.m_string)) {
      return {
        reason:
          'no way to tell a missing account: m_string is part of e_string, so every profile reads as missing',
      };
    }
    return { exists, missing: [{ text: site.m_string }] };
  }
  if (!site.m_string || isNotFoundLike(site.m_code)) return { exists, missing: [{ status: [site.m_code] }] };
  return { exists, missing: [{ text: site.m_string }] };
}

function categoryOf(cat: string): Category {
  return CATEGORY_ALIASES[cat] ?? (isCategory(cat) ? cat : 'misc');
}

function bodyTypeOf(headers: Record<string, string> | undefined): 'json' | 'form' | 'text' {
  const type = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (/json/i.test(type)) return 'json';
  if (/x-www-form-urlencoded/i.test(type)) return 'form';
  return 'text';
}

function escapeInClass(ch: string): string {
  return /[\\\]^[-]/.test(ch) ? `\\${ch}` : escapeRegex(ch);
}

function shapeProblem(raw: unknown): string | undefined {
  if (!isRecord(raw)) return 'not an object';
  for (const key of ['name', 'uri_check', 'e_string', 'm_string', 'cat'] as const) {
    if (typeof raw[key] !== 'string') return `${key} must be a string`;
  }
  if (!isHttpStatus(raw.e_code)) return 'e_code must be an HTTP status';
  if (!isHttpStatus(raw.m_code)) return 'm_code must be an HTTP status';
  if (!isStringList(raw.known)) return 'known must be a list of names';
  if (raw.post_body !== undefined && typeof raw.post_body !== 'string') return 'post_body must be a string';
  if (raw.uri_pretty !== undefined && typeof raw.uri_pretty !== 'string') {
    return 'uri_pretty must be a string';
  }
  if (raw.strip_bad_char !== undefined && typeof raw.strip_bad_char !== 'string') {
    return 'strip_bad_char must be a string';
  }
  if (raw.headers !== undefined && !isStringRecord(raw.headers)) return 'headers must map names to strings';
  if (raw.protection !== undefined && !isStringList(raw.protection)) {
    return 'protection must be a list of strings';
  }
  return undefined;
}
