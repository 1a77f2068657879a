/**
 * The hosts a platform is known by, the one rule for reading a platform's hosts beside
 * another list's entries (the counterparts of the audit and `catalogue validate
 * --reference`, the coverage of the public lists): its own hosts, and the other hosts
 * the same site answers at (`otherHosts`, never asked). Pure.
 */
import { specCheckUrl } from './normalise.js';
import type { Platform } from './platform.js';
import type { PlatformSpec } from './schema.js';
import { fixedHost, PLACEHOLDER, splitAuthority } from './template.js';

/**
 * The host a URL template goes to: lower-case, without `www.` or a port; `{}` where the
 * username stands in it (one host per name, read as one pattern).
 */
export function templateHost(template: string): string {
  const fixed = fixedHost(template);
  if (fixed !== undefined) return fixed;
  const origin = splitAuthority(template)?.origin ?? template;
  return origin
    .replace(/^https?:\/\//i, '')
    .toLowerCase()
    .split(PLACEHOLDER.toLowerCase())
    .join('{}')
    .replace(/:\d+$/, '')
    .replace(/^www\./, '');
}

/**
 * A platform's hosts, each once: its own (where it is checked, then, for `all`, where it
 * shows its profiles and where it lives), then its other hosts. `checked`: the check host
 * is its only own host (where a list's entry asks the same site another way).
 */
export function hostsOf(
  platform: Pick<Platform, 'check' | 'profile' | 'home' | 'otherHosts'>,
  own: 'all' | 'checked' = 'all',
): string[] {
  const urls = own === 'all' ? [platform.check.url, platform.profile, platform.home] : [platform.check.url];
  return [...new Set([...urls.map(templateHost), ...platform.otherHosts])];
}

/** Where an entry is, as a host another entry's `otherHosts` could name. */
export interface HeldHost {
  readonly role: 'check' | 'profile' | 'home' | 'other';
  readonly host: string;
}

/** An entry as written or loaded: the fields its held hosts are read from. */
export interface HostFields {
  readonly checkUrl: string;
  readonly profile: string;
  readonly home: string;
  readonly otherHosts: readonly string[];
  readonly enabled: boolean;
}

/** An entry as written, read for the hosts it holds. */
export function specHostFields(spec: PlatformSpec): HostFields {
  return {
    checkUrl: specCheckUrl(spec),
    profile: spec.profile,
    home: spec.home,
    otherHosts: spec.otherHosts ?? [],
    enabled: spec.enabled !== false,
  };
}

/**
 * Where an entry is checked, shows its profiles and lives, as fixed hosts (none where the
 * username is in the host), each with its role.
 */
export function ownFixedHosts(entry: Pick<HostFields, 'checkUrl' | 'profile' | 'home'>): HeldHost[] {
  const roles = [
    ['check', entry.checkUrl],
    ['profile', entry.profile],
    ['home', entry.home],
  ] as const;
  return roles.flatMap(([role, url]) => {
    const host = fixedHost(url);
    return host === undefined ? [] : [{ role, host }];
  });
}

/**
 * The hosts an entry holds against another entry's other hosts (the loader refuses an entry
 * whose other host another enabled entry holds; `catalogue merge` drops it): none when it is
 * disabled, else its own fixed hosts and its other hosts.
 */
export function heldHosts(entry: HostFields): HeldHost[] {
  if (!entry.enabled) return [];
  return [...ownFixedHosts(entry), ...entry.otherHosts.map((host) => ({ role: 'other' as const, host }))];
}
