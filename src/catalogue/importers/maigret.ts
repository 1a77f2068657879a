/**
 * Imports a Maigret document (`data.json`: `{ sites: {...}, engines: {...}, tags: [...] }`).
 *
 * A site naming an `engine` first gets the engine's `site` fields the way Maigret
 * applies them (`MaigretSite.update_from_engine`): lists are concatenated, maps
 * merged, and the engine's plain values win.
 *
 * Maigret requests `urlProbe` (else `url`), following redirects except for
 * `response_url`, with HEAD only for a `status_code` check with `requestHeadOnly`.
 * A body containing one of the site's `errors`, a 403 (unless `ignore403`) or a
 * 5xx gives "unknown". Otherwise:
 * - `message`: claimed when no `absenceStrs` text is present and one of the
 *   `presenseStrs` is (or there are none); else available;
 * - `status_code`: claimed on 2xx, else available;
 * - `response_url`: claimed on 2xx with a presence text (or none listed), else available.
 *
 * Mapped so: presence (ANY-of) is one regex in `exists`; absence texts are
 * `missing`; `errors` guard both lists; statuses follow `status-codes.ts`. A body
 * with neither an absence nor a presence text gives unknown, not "available".
 * Maigret finds no presence in an empty body, so neither do we. The misspelt
 * key `presenceStrs`, found in the data, is read as `presenseStrs`.
 */

import { transportForTags } from '../defence-tags.js';
import type { CheckSpec, SignalSpec } from '../schema.js';
import { assembleImport, type Conversion, type ConvertedEntry, rejectEntry } from './assemble.js';
import { finishEntry } from './finish-entry.js';
import { categoryAndTags } from './maigret-tags.js';
import { isRecord, isStringList, isStringRecord } from './shape.js';
import { NOT_FOUND_LIKE, SUCCESS, statusUnion } from './status-codes.js';
import { anyOfTexts, anyOfTextsUnless, noneOfTexts } from './text-signals.js';
import type { ImportResult } from './types.js';
import { fixedAddressTemplate, hasPlaceholder, homeOf, PLACEHOLDER } from './url-template.js';

const CHECK_TYPES = ['message', 'status_code', 'response_url'] as const;
type CheckType = (typeof CHECK_TYPES)[number];

/** A site after its engine was applied; only the fields the conversion reads. */
interface MaigretSite {
  readonly url?: string;
  readonly urlMain?: string;
  readonly urlSubpath?: string;
  readonly urlProbe?: string;
  readonly checkType?: string;
  readonly presenseStrs?: string[];
  /** A misspelling of `presenseStrs` found in the data; read as the same list. */
  readonly presenceStrs?: string[];
  readonly absenceStrs?: string[];
  readonly errors?: Record<string, string>;
  readonly ignore403?: boolean;
  readonly disabled?: boolean;
  readonly type?: string;
  readonly protocol?: string;
  readonly activation?: unknown;
  readonly similarSearch?: boolean;
  readonly usernameClaimed?: string;
  readonly usernameUnclaimed?: string;
  readonly regexCheck?: string;
  readonly tags?: string[];
  readonly headers?: Record<string, string>;
  readonly requestHeadOnly?: boolean;
  readonly requestMethod?: string;
  readonly requestPayload?: unknown;
  readonly getParams?: Record<string, unknown>;
  readonly protection?: string[];
  readonly source?: string;
}

const NON_EMPTY_BODY: SignalSpec = { regex: '[\\s\\S]' };

export function looksLikeMaigret(doc: unknown): boolean {
  return isRecord(doc) && isRecord(doc.sites) && (isRecord(doc.engines) || Array.isArray(doc.tags));
}

export function importMaigret(doc: unknown): ImportResult {
  const root = isRecord(doc) ? doc : {};
  const sites = isRecord(root.sites) ? Object.entries(root.sites) : [];
  const engines = isRecord(root.engines) ? root.engines : {};
  const entries: ConvertedEntry[] = sites.map(([name, site]) => ({
    name,
    conversion: convertSite(name, site, engines),
  }));
  return assembleImport('maigret', entries);
}

/** Maigret's `update_from_engine`: lists concatenate, maps merge, plain values are the engine's. */
export function applyEngine(
  site: Record<string, unknown>,
  engineSite: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...site };
  for (const [key, value] of Object.entries(engineSite)) {
    const own = merged[key];
    if (Array.isArray(value)) merged[key] = [...(Array.isArray(own) ? own : []), ...value];
    else if (isRecord(value)) merged[key] = { ...(isRecord(own) ? own : {}), ...value };
    else merged[key] = value;
  }
  return merged;
}

function convertSite(name: string, raw: unknown, engines: Record<string, unknown>): Conversion {
  if (!isRecord(raw)) return rejectEntry('malformed entry: not an object');
  let data = raw;
  if (raw.engine !== undefined) {
    const engine = typeof raw.engine === 'string' ? engines[raw.engine] : undefined;
    if (!isRecord(engine)) {
      return rejectEntry(`uses engine ${String(raw.engine)}, which the file does not define`);
    }
    data = applyEngine(raw, isRecord(engine.site) ? engine.site : {});
  }
  const malformed = shapeProblem(data);
  if (malformed) return rejectEntry(`malformed entry: ${malformed}`);
  const site = data as MaigretSite;

  const refusal = unsupported(site);
  if (refusal) return rejectEntry(refusal);
  if (!CHECK_TYPES.includes(site.checkType as CheckType)) {
    return rejectEntry(site.checkType ? `uses checkType ${site.checkType}` : 'has no checkType');
  }
  const checkType = site.checkType as CheckType;
  if (!site.url) return rejectEntry('has no url');

  const vars = { urlMain: site.urlMain ?? '', urlSubpath: site.urlSubpath ?? '' };
  const url = formatTemplate(site.url, vars, 'url');
  if (!url.ok) return rejectEntry(url.reason);
  // Maigret collapses repeated slashes in the profile URL (not in urlProbe).
  const profileUrl = url.value.replace(/(?<!:)\/+/g, '/');
  const probe = site.urlProbe === undefined ? undefined : formatTemplate(site.urlProbe, vars, 'urlProbe');
  if (probe && !probe.ok) return rejectEntry(probe.reason);
  let checkUrl = probe?.value ?? profileUrl;
  for (const [key, value] of Object.entries(site.getParams ?? {})) checkUrl += `&${key}=${String(value)}`;

  const detect = detectRules(site, checkType);
  if ('reason' in detect) return rejectEntry(detect.reason);

  const notes: string[] = [];
  let profile = profileUrl;
  if (!hasPlaceholder(profile)) {
    profile = fixedAddressTemplate(profileUrl);
    notes.push(`No profile page upstream; the link opens ${profileUrl}.`);
  }
  const check: CheckSpec = {};
  const checkTemplate = hasPlaceholder(checkUrl) ? checkUrl : fixedAddressTemplate(checkUrl);
  if (checkTemplate !== profile) check.url = checkTemplate;

  const method = (
    site.requestMethod ?? (checkType === 'status_code' && site.requestHeadOnly ? 'HEAD' : 'GET')
  ).toUpperCase();
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return rejectEntry(`uses request method ${method}`);
  }
  if (method !== 'GET') check.method = method;
  if (site.requestPayload !== undefined) {
    if (method !== 'POST') return rejectEntry(`sends requestPayload with method ${method}`);
    const body = payloadTemplate(site.requestPayload, vars);
    if (!body.ok) return rejectEntry(body.reason);
    check.body = body.value;
    check.bodyType = 'json';
  } else if (method === 'POST' && !hasPlaceholder(checkUrl)) {
    return rejectEntry('POSTs without the username in the address or a payload');
  }
  if (site.headers && Object.keys(site.headers).length > 0) check.headers = { ...site.headers };
  if (checkType !== 'response_url') check.redirects = 'follow';

  if (site.source) notes.push(`Shows data from ${site.source}.`);
  if (site.protection?.length) {
    notes.push(`Upstream notes anti-bot protection: ${site.protection.join(', ')}.`);
  }
  const reach = transportForTags('maigret', site.protection ?? [], { check, detect });
  if (reach.note) notes.push(reach.note);
  const { category, tags } = categoryAndTags(site.tags ?? []);
  return finishEntry({
    name,
    category,
    home: (site.urlMain && /^https?:\/\//i.test(site.urlMain) ? site.urlMain : homeOf(profile)) || {
      reason: 'no urlMain and no home page in url',
    },
    profile,
    check,
    detect,
    regexCheck: site.regexCheck || undefined,
    claimed: site.usernameClaimed ? [site.usernameClaimed] : [],
    unclaimed: site.usernameUnclaimed ? [site.usernameUnclaimed] : [],
    tags,
    notes,
    transport: reach.transport,
  });
}

/** Entries Maigret itself skips for a username search, or that need more than one static request. */
function unsupported(site: MaigretSite): string | undefined {
  if (site.disabled) return 'disabled upstream';
  if (site.type && site.type !== 'username') return `checks identifiers of type ${site.type}, not usernames`;
  if (site.protocol === 'tor' || site.protocol === 'i2p') return `needs the ${site.protocol} network`;
  if (site.protocol === 'dns') return 'is a DNS lookup, not an HTTP check';
  if (site.protocol) return `uses protocol ${site.protocol}`;
  if (site.activation !== undefined) {
    return 'needs a session token fetched by a first request (activation), which a static check cannot send';
  }
  if (site.similarSearch) return 'searches for similar names (similarSearch), so a result is not one account';
  return undefined;
}

function detectRules(
  site: MaigretSite,
  checkType: CheckType,
): { exists: SignalSpec[]; missing: SignalSpec[] } | { reason: string } {
  const presence = [...(site.presenseStrs ?? []), ...(site.presenceStrs ?? [])];
  const absence = site.absenceStrs ?? [];
  const errors = Object.keys(site.errors ?? {});
  if ([...presence, ...absence, ...errors].some((text) => text === '')) {
    return { reason: 'an empty marker string matches every page' };
  }
  // With ignore403 a 403 is this site's ordinary answer, so it counts like a 2xx (for message) or a not-found (for status checks).
  const success = site.ignore403 && checkType === 'message' ? statusUnion(SUCCESS, [403]) : [...SUCCESS];
  const exists: SignalSpec[] = [{ status: success }];
  // Maigret finds no presence in an empty body, even when it lists no presence texts.
  if (checkType !== 'status_code') exists.push(presence.length > 0 ? anyOfTexts(presence) : NON_EMPTY_BODY);
  // The site's own error pages (bans, captchas, maintenance) must give unknown: never a hit…
  if (errors.length > 0) exists.push(noneOfTexts(errors));

  const missing: SignalSpec[] = [];
  if (checkType === 'message') {
    // …and never a miss, as far as body signals can say it.
    if (absence.length > 0) missing.push(anyOfTextsUnless(absence, errors));
    else if (presence.length > 0) missing.push(noneOfTexts([...presence, ...errors]));
    else
      return {
        reason: 'no way to tell a missing account: checkType message without absenceStrs or presenseStrs',
      };
  } else {
    missing.push({ status: site.ignore403 ? statusUnion(NOT_FOUND_LIKE, [403]) : [...NOT_FOUND_LIKE] });
  }
  return { exists, missing };
}

/**
 * Python's `str.format` with urlMain, urlSubpath and username: `{{`/`}}` are
 * literal braces, `{username}` becomes our placeholder.
 */
export function formatTemplate(
  template: string,
  vars: { readonly urlMain: string; readonly urlSubpath: string },
  field: string,
): { ok: true; value: string } | { ok: false; reason: string } {
  let out = '';
  let placeholders = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      out += c;
      i++;
    } else if (c === '{') {
      const end = template.indexOf('}', i);
      const key = end < 0 ? undefined : template.slice(i + 1, end);
      if (key === 'username') {
        out += PLACEHOLDER;
        placeholders++;
      } else if (key === 'urlMain' || key === 'urlSubpath') {
        out += vars[key];
      } else {
        return { ok: false, reason: `${field} has an unknown field {${key ?? ''}}` };
      }
      i = end;
    } else if (c === '}') {
      return { ok: false, reason: `${field} has a single "}"` };
    } else {
      out += c;
    }
  }
  if (out.split(PLACEHOLDER).length - 1 !== placeholders) {
    return {
      ok: false,
      reason: `${field} contains the literal text ${PLACEHOLDER}, which would be read as the username`,
    };
  }
  return { ok: true, value: out };
}

/** The payload's strings are formatted like the URL, then the payload is sent as JSON. */
function payloadTemplate(
  payload: unknown,
  vars: { readonly urlMain: string; readonly urlSubpath: string },
): { ok: true; value: string } | { ok: false; reason: string } {
  let problem: string | undefined;
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const formatted = formatTemplate(value, vars, 'requestPayload');
      if (!formatted.ok) problem ??= formatted.reason;
      return formatted.ok ? formatted.value : value;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const filled = walk(payload);
  return problem ? { ok: false, reason: problem } : { ok: true, value: JSON.stringify(filled) };
}

function shapeProblem(site: Record<string, unknown>): string | undefined {
  for (const key of [
    'url',
    'urlMain',
    'urlSubpath',
    'urlProbe',
    'checkType',
    'type',
    'protocol',
    'usernameClaimed',
    'usernameUnclaimed',
    'regexCheck',
    'requestMethod',
    'source',
  ] as const) {
    if (site[key] !== undefined && typeof site[key] !== 'string') return `${key} must be a string`;
  }
  for (const key of ['presenseStrs', 'presenceStrs', 'absenceStrs', 'tags', 'protection'] as const) {
    if (site[key] !== undefined && !isStringList(site[key])) return `${key} must be a list of strings`;
  }
  if (site.errors !== undefined && !isStringRecord(site.errors)) return 'errors must map texts to strings';
  if (site.headers !== undefined && !isStringRecord(site.headers)) return 'headers must map names to strings';
  if (site.getParams !== undefined && !isRecord(site.getParams)) return 'getParams must be an object';
  return undefined;
}
