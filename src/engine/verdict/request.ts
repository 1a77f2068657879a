/**
 * Builds the HTTP request that checks one username on one platform.
 * Pure: no IO. A username can never change the scheme, host or port.
 */
import type { BodyType, HttpMethod, Platform, RedirectPolicy } from '../../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../../catalogue/template.js';
import { platformUsername, ruleViolation, usernameProblem } from '../../catalogue/username-rule.js';
import type { InvalidReason } from './outcome.js';
import type { Session } from './session.js';

export interface CheckRequest {
  /** The name as the request carries it (the platform's username rule applied): what a page naming the account shows. */
  readonly username: string;
  readonly url: string;
  /** `scheme://host:port`: the key for per-host limits. */
  readonly origin: string;
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly redirects: RedirectPolicy;
  /**
   * The operator's session for the platform, added by each transport only to a request
   * whose host is the session's (never to a redirect elsewhere); absent: none.
   */
  readonly session?: Session | undefined;
}

export type BuildResult =
  | { readonly ok: true; readonly request: CheckRequest; readonly profileUrl: string }
  | {
      readonly ok: false;
      readonly reason: InvalidReason;
      readonly message: string;
      readonly profileUrl: string;
    };

/**
 * A DNS label: what a username may be when a template puts it in a host name. Matched on
 * the name as given, case-insensitively without the `u` flag, where only ASCII capitals
 * match (not KELVIN SIGN U+212A, which `toLowerCase` would turn into k).
 */
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

const CONTENT_TYPES: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain; charset=utf-8',
};

/** What every URL filled from a template must keep of its origin (the scheme, port and host). */
type Kept = Pick<URL, 'protocol' | 'port' | 'hostname'>;

/** A template split at its authority, and what a fixed host keeps (null: it has none that parses). */
interface TemplateParts {
  readonly origin: string;
  readonly rest: string;
  /** Undefined when the host holds the placeholder: what it keeps depends on the name. */
  readonly kept: Kept | null | undefined;
}

/**
 * Templates seen, so the catalogue's are split and their origin parsed once, not on
 * every check (null: not an absolute http(s) URL). Bounded: a catalogue has a few
 * thousand templates; more are forgotten and worked out again.
 */
const templates = new Map<string, TemplateParts | null>();
const TEMPLATES_KEPT = 8192;

function keptOf(origin: string): Kept {
  const { protocol, port, hostname } = new URL(origin.split(PLACEHOLDER).join('x') + '/');
  return { protocol, port, hostname };
}

function templateParts(template: string): TemplateParts | null {
  let parts = templates.get(template);
  if (parts === undefined) {
    const split = splitAuthority(template);
    if (!split) parts = null;
    else {
      let kept: Kept | null | undefined;
      if (!split.origin.includes(PLACEHOLDER)) {
        try {
          kept = keptOf(split.origin);
        } catch {
          kept = null;
        }
      }
      parts = { ...split, kept };
    }
    if (templates.size >= TEMPLATES_KEPT) templates.clear();
    templates.set(template, parts);
  }
  return parts;
}

/**
 * Fills a URL template. In the host the name must be a DNS label; elsewhere it is
 * percent-encoded (every reserved character, so `/`, `?`, `#`, `%` stay data).
 * Returns undefined when the result would reach another origin than the template.
 */
export function fillUrlTemplate(template: string, username: string): string | undefined {
  return filledUrl(template, username)?.href;
}

/** fillUrlTemplate's URL, as text and parsed. */
function filledUrl(template: string, username: string): { href: string; url: URL } | undefined {
  const parts = templateParts(template);
  if (!parts) return undefined;
  let origin = parts.origin;
  if (parts.kept === undefined) {
    if (!HOST_LABEL.test(username)) return undefined;
    const label = username.toLowerCase();
    origin = origin.split(PLACEHOLDER).join(label);
  }
  // Defence in depth: the filled URL must keep the template's scheme, host and port.
  try {
    // encodeURIComponent throws on a lone surrogate: such a name has no URL.
    const filled = origin + parts.rest.split(PLACEHOLDER).join(encodePathData(username));
    const url = new URL(filled);
    const expected = parts.kept === undefined ? keptOf(origin) : parts.kept;
    if (expected === null) return undefined;
    if (url.protocol !== expected.protocol || url.port !== expected.port) return undefined;
    if (parts.kept !== undefined && url.hostname !== expected.hostname) return undefined;
    if (url.username || url.password) return undefined;
    return { href: filled, url };
  } catch {
    return undefined;
  }
}

/** encodeURIComponent leaves `.`, so a lone `.`/`..` could still be a path step; those names are refused earlier. */
function encodePathData(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function fillBody(template: string, username: string, type: BodyType): string {
  const value =
    type === 'json'
      ? JSON.stringify(username).slice(1, -1)
      : type === 'form'
        ? encodeURIComponent(username)
        : username;
  return template.split(PLACEHOLDER).join(value);
}

export function buildRequest(
  platform: Platform,
  rawUsername: string,
  baseHeaders: Readonly<Record<string, string>>,
  /** The operator's session for this platform (session.ts), carried as data. */
  session?: Session,
): BuildResult {
  const username = platformUsername(platform, rawUsername);
  const safeProfile = fillUrlTemplate(platform.profile, username);
  const profileUrl = safeProfile ?? platform.home;
  // Both rules judge the name as it was given, before any folding.
  const generic = usernameProblem(rawUsername);
  if (generic) return { ok: false, reason: 'unsafe_username', message: `username ${generic}`, profileUrl };
  const rule = ruleViolation(platform.username, rawUsername);
  if (rule) return { ok: false, reason: 'username_rule', message: `username ${rule}`, profileUrl };
  const filled = filledUrl(platform.check.url, username);
  if (!filled || !safeProfile) {
    return {
      ok: false,
      reason: 'unsafe_username',
      message: 'username cannot be placed in this platform’s address safely',
      profileUrl,
    };
  }
  const headers: Record<string, string> = { ...baseHeaders, ...platform.check.headers };
  let body: string | undefined;
  if (platform.check.method === 'POST' && platform.check.body !== undefined) {
    body = fillBody(platform.check.body, username, platform.check.bodyType);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = CONTENT_TYPES[platform.check.bodyType];
    }
  }
  return {
    ok: true,
    profileUrl,
    request: {
      username,
      url: filled.href,
      origin: filled.url.origin,
      method: platform.check.method,
      headers,
      body,
      redirects: platform.check.redirects,
      ...(session ? { session } : {}),
    },
  };
}
