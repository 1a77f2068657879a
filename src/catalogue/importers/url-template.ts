/**
 * Turning upstream URL templates into ours: placeholder replacement, the home
 * page, and fixed addresses (a POST API, a site without profile pages).
 */
import { PLACEHOLDER, splitAuthority } from '../template.js';

export { PLACEHOLDER };

export type Templated =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Replaces every `upstream` placeholder with ours. A literal `{username}` already
 * in the text would become a placeholder too, so it is refused.
 */
export function replacePlaceholder(text: string, upstream: string, field: string): Templated {
  if (upstream !== PLACEHOLDER && text.includes(PLACEHOLDER)) {
    return {
      ok: false,
      reason: `${field} contains the literal text ${PLACEHOLDER}, which would be read as the username`,
    };
  }
  return { ok: true, value: text.split(upstream).join(PLACEHOLDER) };
}

export function hasPlaceholder(text: string): boolean {
  return text.includes(PLACEHOLDER);
}

/**
 * Our loader wants `{username}` in every check and profile template, but some
 * checks POST the name to a fixed address and some platforms have no profile
 * page. The placeholder then goes into the fragment: a fragment is never sent
 * in an HTTP request, so the request stays exactly the upstream's.
 */
export function fixedAddressTemplate(url: string): string {
  return url.includes('#') ? `${url}${PLACEHOLDER}` : `${url}#${PLACEHOLDER}`;
}

/** `scheme://host/` of a template, without the labels that carry the username. */
export function homeOf(template: string): string | undefined {
  const parts = splitAuthority(template);
  if (!parts) return undefined;
  const m = /^(https?:\/\/)(.*)$/i.exec(parts.origin);
  if (!m) return undefined;
  const labels = m[2]!.split('.');
  const kept = labels.filter((label) => !label.includes(PLACEHOLDER));
  // "{username}.example.com" has a home at example.com; "{username}.com" has none.
  if (kept.length === 0 || (kept.length < labels.length && kept.length < 2)) return undefined;
  return `${m[1]!.toLowerCase()}${kept.join('.')}/`;
}
