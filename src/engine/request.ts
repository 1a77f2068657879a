/**
 * Builds the HTTP request that checks one username on one platform.
 * Pure: no IO. A username can never change the scheme, host or port.
 */
import type { BodyType, HttpMethod, Platform, RedirectPolicy } from '../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../catalogue/template.js';
import { platformUsername, ruleViolation, usernameProblem } from '../catalogue/username-rule.js';
import type { InvalidReason } from './outcome.js';

export interface CheckRequest {
  readonly url: string;
  /** `scheme://host:port`: the key for per-host limits. */
  readonly origin: string;
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly redirects: RedirectPolicy;
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

/**
 * Fills a URL template. In the host the name must be a DNS label; elsewhere it is
 * percent-encoded (every reserved character, so `/`, `?`, `#`, `%` stay data).
 * Returns undefined when the result would reach another origin than the template.
 */
export function fillUrlTemplate(template: string, username: string): string | undefined {
  const parts = splitAuthority(template);
  if (!parts) return undefined;
  let origin = parts.origin;
  if (origin.includes(PLACEHOLDER)) {
    if (!HOST_LABEL.test(username)) return undefined;
    const label = username.toLowerCase();
    origin = origin.split(PLACEHOLDER).join(label);
  }
  // Defence in depth: the filled URL must keep the template's scheme, host and port.
  try {
    // encodeURIComponent throws on a lone surrogate: such a name has no URL.
    const filled = origin + parts.rest.split(PLACEHOLDER).join(encodePathData(username));
    const url = new URL(filled);
    const expected = new URL(origin.split(PLACEHOLDER).join('x') + '/');
    if (url.protocol !== expected.protocol || url.port !== expected.port) return undefined;
    if (!parts.origin.includes(PLACEHOLDER) && url.hostname !== expected.hostname) return undefined;
    if (url.username || url.password) return undefined;
    return filled;
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
): BuildResult {
  const username = platformUsername(platform, rawUsername);
  const safeProfile = fillUrlTemplate(platform.profile, username);
  const profileUrl = safeProfile ?? platform.home;
  // Both rules judge the name as it was given, before any folding.
  const generic = usernameProblem(rawUsername);
  if (generic) return { ok: false, reason: 'unsafe_username', message: `username ${generic}`, profileUrl };
  const rule = ruleViolation(platform.username, rawUsername);
  if (rule) return { ok: false, reason: 'username_rule', message: `username ${rule}`, profileUrl };
  const url = fillUrlTemplate(platform.check.url, username);
  if (!url || !safeProfile) {
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
      url,
      origin: new URL(url).origin,
      method: platform.check.method,
      headers,
      body,
      redirects: platform.check.redirects,
    },
  };
}
