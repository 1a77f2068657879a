/**
 * URL templates: a URL with one or more `{username}` placeholders.
 * Pure helpers shared by the loader (validation) and the request builder.
 */
export const PLACEHOLDER = '{username}';

export interface TemplateShape {
  /** The placeholder stands inside the host name (e.g. https://{username}.example.com/). */
  readonly inHost: boolean;
  /** The placeholder stands in the path, query or fragment. */
  readonly inPathOrQuery: boolean;
}

/** Splits `scheme://authority` from the rest, without parsing the placeholder as URL syntax. */
export function splitAuthority(template: string): { origin: string; rest: string } | undefined {
  const m = /^(https?:\/\/)([^/?#]*)(.*)$/i.exec(template);
  if (!m) return undefined;
  return { origin: `${m[1]}${m[2]}`, rest: m[3] ?? '' };
}

/** Checks a template and says where the placeholder stands; returns a problem text when it is unusable. */
export function inspectTemplate(template: string, requirePlaceholder = true): TemplateShape | string {
  const parts = splitAuthority(template);
  if (!parts) return 'must be an absolute http:// or https:// URL';
  const inHost = parts.origin.includes(PLACEHOLDER);
  const inPathOrQuery = parts.rest.includes(PLACEHOLDER);
  if (requirePlaceholder && !inHost && !inPathOrQuery) return `must contain ${PLACEHOLDER}`;
  if (
    inHost &&
    /[@:]/.test(
      parts.origin
        .slice(parts.origin.indexOf('//') + 2)
        .split(PLACEHOLDER)
        .join(''),
    )
  ) {
    return 'a host template must not carry credentials or a port next to the placeholder';
  }
  try {
    const probe = new URL(template.split(PLACEHOLDER).join('probe'));
    if (probe.protocol !== 'http:' && probe.protocol !== 'https:') return 'must use http or https';
  } catch {
    return 'is not a valid URL once {username} is filled in';
  }
  return { inHost, inPathOrQuery };
}

/**
 * The one origin (scheme, host, port) a check template's requests go to, or undefined
 * when the host holds the placeholder (a different host per name) or it has none.
 */
export function fixedOrigin(template: string): string | undefined {
  const parts = splitAuthority(template);
  if (!parts || parts.origin.includes(PLACEHOLDER)) return undefined;
  try {
    return new URL(`${parts.origin}/`).origin;
  } catch {
    return undefined;
  }
}

/**
 * The host a template always goes to, lower-case and without a leading `www.`; undefined
 * when the host holds the placeholder (one per name) or the template is not a URL.
 */
export function fixedHost(template: string): string | undefined {
  const origin = fixedOrigin(template);
  return origin === undefined ? undefined : new URL(origin).hostname.toLowerCase().replace(/^www\./, '');
}
