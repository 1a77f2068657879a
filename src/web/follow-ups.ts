/**
 * The follow-up searches of a recursive search, as the page lists them: each
 * new name, the hit whose profile gave it, and a link that opens its search
 * here (or why none was started). Text goes in as text (dom.ts).
 */
import type { SearchSnapshot } from './api-types.js';
import { h } from './dom.js';

export type FollowUp = NonNullable<SearchSnapshot['followUps']>[number];

/** What the page says above the list: pending, none, or how many. */
export function followUpsStatus(search: Pick<SearchSnapshot, 'followUps' | 'followUpsPending'>): string {
  if (search.followUpsPending) return 'Starting the follow-up searches of the new names the hits gave…';
  const count = search.followUps?.length ?? 0;
  if (count === 0) return 'No hit’s profile gave a new name to follow up.';
  const started = search.followUps?.filter((f) => f.queryId !== undefined).length ?? 0;
  return `${count} new ${count === 1 ? 'name' : 'names'} found in the hits’ profiles; ${started} searched.`;
}

/** One list item per follow-up; `platformName` names the platform of the hit that gave it. */
export function followUpItems(
  followUps: readonly FollowUp[],
  platformName: (platformId: string) => string,
): HTMLLIElement[] {
  return followUps.map((f) =>
    h(
      'li',
      { 'data-username': f.username },
      h('strong', {}, f.username),
      ` found in the hit on ${platformName(f.from)}: `,
      f.queryId !== undefined
        ? h('a', { href: `/?id=${encodeURIComponent(f.queryId)}` }, `open the search for ${f.username}`)
        : h('span', { class: 'hint' }, `not searched (${f.notSearched ?? 'no reason given'})`),
    ),
  );
}
