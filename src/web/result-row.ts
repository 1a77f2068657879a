/**
 * One result as a table row: platform, category, outcome in words and symbol
 * (never colour alone), response time, a profile link on every row (so a
 * person can check a miss or a non-answer by hand) that opens in a new tab
 * without giving it access to this page, and in a disclosure (<details>:
 * keyboard accessible without script) a hit's profile and the evidence behind
 * the outcome. Each row has an id (`rowId`) that linked accounts point to.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { h, safeHref } from './dom.js';
import { reasonText, STATUS_LABELS } from './labels.js';
import { type LinkedAccounts, profileDetails, rowId } from './profile-details.js';

const NO_LINKS: LinkedAccounts = { linksTo: [], linkedFrom: [] };

const LINK_TEXT: Record<Outcome['status'], string> = {
  hit: 'Open profile',
  miss: 'Check yourself',
  unknown: 'Check yourself',
  error: 'Check yourself',
  invalid: 'Check yourself',
};

/** The evidence fields, in the order shown; absent ones are left out. */
export function evidenceItems(o: Outcome, timeOf: (ms: number) => string): [string, string][] {
  const e = o.evidence;
  const items: [string, string][] = [['Rule', e.rule]];
  if (e.snippet !== undefined) items.push(['Marker in the page', e.snippet]);
  if (e.control !== undefined) items.push(['Control check', e.control]);
  if (e.httpStatus !== undefined) items.push(['HTTP status', String(e.httpStatus)]);
  if (e.finalUrl !== undefined) items.push(['Final URL', e.finalUrl]);
  items.push(['Attempts', String(e.attempts)]);
  if (e.bytesRead !== undefined) items.push(['Bytes read', String(e.bytesRead)]);
  items.push([
    'Cached',
    e.cachedAt === undefined ? 'no, checked for this search' : `at ${timeOf(e.cachedAt)}`,
  ]);
  return items;
}

const localTime = (ms: number) => new Date(ms).toLocaleString();

export function resultRow(o: Outcome, linked: LinkedAccounts = NO_LINKS): HTMLTableRowElement {
  const label = STATUS_LABELS[o.status];
  const href = safeHref(o.url);
  const reason = reasonText(o.reason);
  return h(
    'tr',
    // tabindex -1: a linked account's link brings the keyboard to its row.
    { id: rowId(o.platformId), tabindex: -1, 'data-status': o.status, 'data-platform': o.platform },
    h('th', { scope: 'row' }, o.platform),
    h('td', { 'data-label': 'Category' }, o.category),
    h(
      'td',
      { 'data-label': 'Outcome' },
      h(
        'span',
        { class: `badge badge-${o.status}` },
        h('span', { 'aria-hidden': 'true' }, `${label.symbol} `),
        label.label,
      ),
      reason ? h('span', { class: 'reason' }, ` (${reason})`) : null,
    ),
    h('td', { 'data-label': 'Response time' }, o.responseTime > 0 ? `${o.responseTime} ms` : '–'),
    h(
      'td',
      { 'data-label': 'Profile' },
      href
        ? h(
            'a',
            { href, target: '_blank', rel: 'noopener noreferrer' },
            LINK_TEXT[o.status],
            h('span', { class: 'visually-hidden' }, ` on ${o.platform} (opens in a new tab)`),
          )
        : '–',
    ),
    h(
      'td',
      { 'data-label': 'Evidence' },
      h(
        'details',
        { class: 'evidence' },
        h('summary', {}, 'Details', h('span', { class: 'visually-hidden' }, ` of ${o.platform}`)),
        profileDetails(o, linked),
        h(
          'dl',
          {},
          ...evidenceItems(o, localTime).map(([term, value]) =>
            h('div', {}, h('dt', {}, term), h('dd', {}, value)),
          ),
        ),
      ),
    ),
  );
}
