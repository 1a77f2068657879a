/**
 * Which accounts point to which: a hit's profile links (rel="me", sameAs, its
 * website) that match another platform's profile URL template are evidence
 * that the two accounts belong together. Pure: the catalogue's templates and
 * the outcomes in, the links out.
 */
import type { Platform } from '../../catalogue/platform.js';
import type { Outcome } from './outcome.js';

/** One profile linking to another platform's profile of `username`. */
export interface AccountLink {
  /** The platform id of the hit whose profile holds the link. */
  readonly from: string;
  /** The platform id the link points to. */
  readonly to: string;
  /** The username in the link (may differ from the one searched). */
  readonly username: string;
  readonly url: string;
}

interface Template {
  readonly id: string;
  readonly re: RegExp;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A matcher of profile URLs built once from the platforms' templates, indexed by host. */
export class ProfileUrlMatcher {
  /** Host without `www.` → the templates on it. */
  readonly #byHost = new Map<string, Template[]>();

  constructor(platforms: readonly Pick<Platform, 'id' | 'profile'>[]) {
    for (const platform of platforms) {
      let url: URL;
      try {
        url = new URL(platform.profile.replace('{username}', 'USERNAMEPLACEHOLDER'));
      } catch {
        continue;
      }
      // Only templates with the name in the path: a name in the host is too loose to match links by.
      if (!url.pathname.includes('USERNAMEPLACEHOLDER') || url.hostname.includes('usernameplaceholder'))
        continue;
      const host = hostKey(url.hostname);
      const path = escapeRegex(url.pathname).replace('USERNAMEPLACEHOLDER', '([^/?#]{1,100})');
      const templates = this.#byHost.get(host) ?? [];
      templates.push({
        id: platform.id,
        re: new RegExp(`^https?://(?:www\\.)?${escapeRegex(host)}${path}/?(?:[?#].*)?$`, 'i'),
      });
      this.#byHost.set(host, templates);
    }
  }

  /** The platform and username a URL is the profile of, if any. */
  match(url: string): { id: string; username: string } | undefined {
    let host: string;
    try {
      host = hostKey(new URL(url).hostname);
    } catch {
      return undefined;
    }
    // Only the templates of the link's own host are tried, not every platform's.
    for (const template of this.#byHost.get(host) ?? []) {
      const m = template.re.exec(url);
      if (m) {
        let username: string;
        try {
          username = decodeURIComponent(m[1]!);
        } catch {
          continue;
        }
        return { id: template.id, username };
      }
    }
    return undefined;
  }
}

const hostKey = (hostname: string) => hostname.toLowerCase().replace(/^www\./, '');

/** Every link from a hit's profile to another platform's profile. */
export function accountLinks(outcomes: readonly Outcome[], matcher: ProfileUrlMatcher): AccountLink[] {
  const links: AccountLink[] = [];
  const seen = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.status !== 'hit' || !outcome.profile?.links) continue;
    for (const url of outcome.profile.links) {
      const target = matcher.match(url);
      if (!target || target.id === outcome.platformId) continue;
      const key = `${outcome.platformId} ${target.id} ${target.username.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      links.push({ from: outcome.platformId, to: target.id, username: target.username, url });
    }
  }
  return links;
}

/** The outcomes, each marked with the platforms whose profiles link to it for the searched name. */
export function withLinkedFrom(
  outcomes: readonly Outcome[],
  links: readonly AccountLink[],
  username: string,
): Outcome[] {
  const name = username.toLowerCase();
  const from = new Map<string, string[]>();
  for (const link of links) {
    if (link.username.toLowerCase() !== name) continue;
    from.set(link.to, [...(from.get(link.to) ?? []), link.from]);
  }
  if (from.size === 0) return [...outcomes];
  return outcomes.map((o) => (from.has(o.platformId) ? { ...o, linkedFrom: from.get(o.platformId)! } : o));
}
