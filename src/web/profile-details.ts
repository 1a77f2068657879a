/**
 * A hit's profile as a row's details show it: name, bio, place, dates and
 * counts as text, the pages it links to as links only when they are http(s)
 * (never followed, never given this page), no remote image, and the accounts
 * it is linked with as links to their own rows on this page. Text from the
 * profile only ever goes in as text (dom.ts), so a bio cannot inject markup.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { h, safeHref } from './dom.js';

/** The id of a platform's row, which linked accounts point to (`#row-…`). */
export function rowId(platformId: string): string {
  return `row-${platformId}`;
}

/** The accounts a hit is linked with, among this search's outcomes. */
export interface LinkedAccounts {
  /** Outcomes whose accounts this hit's profile links to. */
  readonly linksTo: readonly Pick<Outcome, 'platform' | 'platformId'>[];
  /** Outcomes whose profiles link to this account. */
  readonly linkedFrom: readonly Pick<Outcome, 'platform' | 'platformId'>[];
}

/** Which outcomes each links to and is linked from, read off their `linkedFrom`. Pure. */
export function linkedAccounts(outcomes: Iterable<Outcome>): (platformId: string) => LinkedAccounts {
  const byId = new Map<string, Outcome>();
  for (const o of outcomes) byId.set(o.platformId, o);
  const linksTo = new Map<string, Outcome[]>();
  for (const target of byId.values())
    for (const from of target.linkedFrom ?? []) {
      if (!byId.has(from) || from === target.platformId) continue;
      linksTo.set(from, [...(linksTo.get(from) ?? []), target]);
    }
  return (platformId) => ({
    linksTo: linksTo.get(platformId) ?? [],
    linkedFrom: (byId.get(platformId)?.linkedFrom ?? [])
      .filter((id) => id !== platformId)
      .flatMap((id) => {
        const o = byId.get(id);
        return o ? [o] : [];
      }),
  });
}

/** An outside page: a new tab that gets neither this page nor a referrer, and no endorsement. */
function outsideLink(url: string, text: string): Node | string {
  const href = safeHref(url);
  return href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, text) : text;
}

function rowLinks(accounts: LinkedAccounts['linksTo']): HTMLElement {
  return h(
    'ul',
    { class: 'profile-list' },
    ...accounts.map((a) =>
      h('li', {}, h('a', { href: `#${rowId(a.platformId)}`, 'data-row': rowId(a.platformId) }, a.platform)),
    ),
  );
}

/** The profile's fields and linked accounts as a list of terms; null when there is nothing to show. */
export function profileDetails(o: Outcome, linked: LinkedAccounts): HTMLElement | null {
  const p = o.profile;
  const items: [string, Node | string][] = [];
  if (p?.fullName) items.push(['Name', p.fullName]);
  if (p?.bio) items.push(['Bio', h('span', { class: 'bio' }, p.bio)]);
  if (p?.location) items.push(['Location', p.location]);
  if (p?.createdAt) items.push(['Joined', p.createdAt]);
  if (p?.followers !== undefined) items.push(['Followers', String(p.followers)]);
  if (p?.following !== undefined) items.push(['Following', String(p.following)]);
  if (p?.website) items.push(['Website', outsideLink(p.website, p.website)]);
  if (p?.links?.length)
    items.push([
      'Links',
      h('ul', { class: 'profile-list' }, ...p.links.map((url) => h('li', {}, outsideLink(url, url)))),
    ]);
  for (const [kind, value] of Object.entries(p?.ids ?? {})) items.push([`ID (${kind})`, value]);
  // The picture is a link, never an image: loading it would tell its host who looks.
  if (p?.avatarUrl) items.push(['Picture', outsideLink(p.avatarUrl, 'Open the profile picture')]);
  if (linked.linksTo.length) items.push(['Links to', rowLinks(linked.linksTo)]);
  if (linked.linkedFrom.length) items.push(['Linked from', rowLinks(linked.linkedFrom)]);
  if (items.length === 0) return null;
  return h(
    'div',
    { class: 'profile' },
    h('p', { class: 'profile-heading' }, 'Profile'),
    h('dl', {}, ...items.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value)))),
  );
}
