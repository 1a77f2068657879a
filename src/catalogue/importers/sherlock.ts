/**
 * Imports a Sherlock document (`data.json`: `{ "<name>": {...}, "$schema": ... }`).
 *
 * Sherlock requests `urlProbe` (else `url`) with `{}` replaced by the name: HEAD
 * for a pure `status_code` check, GET otherwise, or `request_method`; it follows
 * redirects except for `response_url`. Then, for each `errorType`:
 * - `message`: any `errorMsg` text in the body means available, else claimed;
 * - `status_code`: a status in `errorCode`, or any non-2xx status, means available;
 * - `response_url`: any non-2xx status means available (`errorUrl` is not read).
 *
 * Mapped with the policy in `status-codes.ts`: a hit needs a 2xx status, and the
 * statuses that say nothing about the account (401, 403, 429, 5xx) give unknown
 * instead of Sherlock's "available".
 */
import type { CheckSpec, SignalSpec } from '../schema.js';
import { assembleImport, type Conversion, type ConvertedEntry, rejectEntry } from './assemble.js';
import { finishEntry } from './finish-entry.js';
import { isRecord, isStringList, isStringRecord } from './shape.js';
import { isHttpStatus, NOT_FOUND_LIKE, SUCCESS, statusUnion, statusWithout } from './status-codes.js';
import type { ImportResult } from './types.js';
import { fixedAddressTemplate, hasPlaceholder, homeOf, replacePlaceholder } from './url-template.js';

const BRACES = '{}';
const ERROR_TYPES = ['message', 'status_code', 'response_url'] as const;
type ErrorType = (typeof ERROR_TYPES)[number];

interface SherlockSite {
  readonly url: string;
  readonly urlMain?: string;
  readonly urlProbe?: string;
  readonly errorType: ErrorType | ErrorType[];
  readonly errorMsg?: string | string[];
  readonly errorCode?: number | number[];
  readonly regexCheck?: string;
  readonly username_claimed: string;
  /** Dropped from Sherlock's data in 2023, still read when present. */
  readonly username_unclaimed?: string;
  readonly request_method?: string;
  readonly request_payload?: unknown;
  readonly headers?: Record<string, string>;
  readonly isNSFW?: boolean;
  readonly __comment__?: string;
}

/** Keys such as `$schema` are metadata, not sites. */
function siteEntries(doc: Record<string, unknown>): [string, unknown][] {
  return Object.entries(doc).filter(([name]) => !name.startsWith('$'));
}

export function looksLikeSherlock(doc: unknown): boolean {
  if (!isRecord(doc) || 'sites' in doc || 'platforms' in doc) return false;
  const sites = siteEntries(doc);
  return (
    sites.length > 0 &&
    sites.every(([, site]) => isRecord(site)) &&
    sites.some(([, site]) => isRecord(site) && typeof site.url === 'string' && 'errorType' in site)
  );
}

export function importSherlock(doc: unknown): ImportResult {
  const sites = isRecord(doc) ? siteEntries(doc) : [];
  const entries: ConvertedEntry[] = sites.map(([name, site]) => ({
    name,
    conversion: convertSite(name, site),
  }));
  return assembleImport('sherlock', entries);
}

function convertSite(name: string, raw: unknown): Conversion {
  const malformed = shapeProblem(raw);
  if (malformed) return rejectEntry(`malformed entry: ${malformed}`);
  const site = raw as SherlockSite;
  const types: ErrorType[] = Array.isArray(site.errorType) ? site.errorType : [site.errorType];

  const detect = detectRules(site, types);
  if ('reason' in detect) return rejectEntry(detect.reason);

  const method =
    site.request_method?.toUpperCase() ?? (types.length === 1 && types[0] === 'status_code' ? 'HEAD' : 'GET');
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return rejectEntry(`uses request method ${method}`);
  }

  const url = replacePlaceholder(site.url, BRACES, 'url');
  if (!url.ok) return rejectEntry(url.reason);
  const probe =
    site.urlProbe === undefined ? undefined : replacePlaceholder(site.urlProbe, BRACES, 'urlProbe');
  if (probe && !probe.ok) return rejectEntry(probe.reason);
  const checkUrl = probe?.value ?? url.value;

  const check: CheckSpec = {};
  const notes: string[] = [];
  if (site.__comment__) notes.push(`Sherlock: ${site.__comment__}`);
  let profile = url.value;
  if (!hasPlaceholder(profile)) {
    profile = fixedAddressTemplate(url.value);
    notes.push(`No profile page upstream; the link opens ${url.value}.`);
  }
  const checkTemplate = hasPlaceholder(checkUrl) ? checkUrl : fixedAddressTemplate(checkUrl);
  if (checkTemplate !== profile) check.url = checkTemplate;
  if (method !== 'GET') check.method = method;
  if (site.request_payload !== undefined) {
    if (method !== 'POST') return rejectEntry(`sends request_payload with method ${method}`);
    const body = payloadTemplate(site.request_payload);
    if (!body.ok) return rejectEntry(body.reason);
    check.body = body.value;
    check.bodyType = 'json';
  } else if (method === 'POST' && !hasPlaceholder(checkUrl)) {
    return rejectEntry('POSTs without the username in the address or a payload');
  }
  if (site.headers && Object.keys(site.headers).length > 0) check.headers = { ...site.headers };
  // Sherlock disables redirects only for response_url, where the redirect itself is the answer.
  if (!types.includes('response_url')) check.redirects = 'follow';

  return finishEntry({
    name,
    // Sherlock has no categories.
    category: site.isNSFW ? 'nsfw' : 'misc',
    home: (site.urlMain ?? homeOf(profile)) || { reason: 'no urlMain and no home page in url' },
    profile,
    check,
    detect,
    regexCheck: site.regexCheck,
    claimed: [site.username_claimed],
    unclaimed: site.username_unclaimed ? [site.username_unclaimed] : [],
    notes,
  });
}

function detectRules(
  site: SherlockSite,
  types: readonly ErrorType[],
): { exists: SignalSpec[]; missing: SignalSpec[] } | { reason: string } {
  const missing: SignalSpec[] = [];
  let missingStatus: number[] = [];
  let success = [...SUCCESS];
  for (const type of types) {
    if (type === 'message') {
      const texts =
        site.errorMsg === undefined
          ? []
          : typeof site.errorMsg === 'string'
            ? [site.errorMsg]
            : site.errorMsg;
      if (texts.length === 0) {
        return { reason: 'no way to tell a missing account: errorType message without errorMsg' };
      }
      if (texts.some((t) => t === '')) return { reason: 'an empty errorMsg matches every page' };
      missing.push(...texts.map((text) => ({ text })));
    } else if (type === 'status_code') {
      const codes =
        site.errorCode === undefined
          ? []
          : typeof site.errorCode === 'number'
            ? [site.errorCode]
            : site.errorCode;
      missingStatus = statusUnion(missingStatus, NOT_FOUND_LIKE, codes);
      success = statusWithout(success, codes);
    } else {
      missingStatus = statusUnion(missingStatus, NOT_FOUND_LIKE);
    }
  }
  if (missingStatus.length > 0) missing.unshift({ status: missingStatus });
  return { exists: [{ status: success }], missing };
}

/** Sherlock replaces `{}` in every string of the payload, then sends it as JSON. */
function payloadTemplate(payload: unknown): { ok: true; value: string } | { ok: false; reason: string } {
  let problem: string | undefined;
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const replaced = replacePlaceholder(value, BRACES, 'request_payload');
      if (!replaced.ok) problem = replaced.reason;
      return replaced.ok ? replaced.value : value;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const filled = walk(payload);
  if (problem) return { ok: false, reason: problem };
  return { ok: true, value: JSON.stringify(filled) };
}

function shapeProblem(raw: unknown): string | undefined {
  if (!isRecord(raw)) return 'not an object';
  if (typeof raw.url !== 'string') return 'url must be a string';
  if (typeof raw.username_claimed !== 'string') return 'username_claimed must be a string';
  const types = Array.isArray(raw.errorType) ? raw.errorType : [raw.errorType];
  if (types.length === 0 || !types.every((t) => (ERROR_TYPES as readonly unknown[]).includes(t))) {
    return `errorType must be one of ${ERROR_TYPES.join(', ')}`;
  }
  if (raw.errorMsg !== undefined && typeof raw.errorMsg !== 'string' && !isStringList(raw.errorMsg)) {
    return 'errorMsg must be a string or a list of strings';
  }
  const codes = Array.isArray(raw.errorCode)
    ? raw.errorCode
    : raw.errorCode === undefined
      ? []
      : [raw.errorCode];
  if (!codes.every(isHttpStatus)) return 'errorCode must be an HTTP status or a list of them';
  for (const key of [
    'urlMain',
    'urlProbe',
    'regexCheck',
    'request_method',
    'username_unclaimed',
    '__comment__',
  ] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') return `${key} must be a string`;
  }
  if (raw.headers !== undefined && !isStringRecord(raw.headers)) return 'headers must map names to strings';
  return undefined;
}
