/**
 * One result as a table row: platform, category, outcome in words and symbol
 * (never colour alone), response time, and a profile link that opens in a new
 * tab without giving it access to this page.
 */
import type { Outcome } from '../engine/outcome.js';
import { h, safeHref } from './dom.js';
import { reasonText, STATUS_LABELS } from './labels.js';

export function resultRow(o: Outcome): HTMLTableRowElement {
  const label = STATUS_LABELS[o.status];
  const href = o.status === 'hit' || o.status === 'unknown' ? safeHref(o.url) : undefined;
  const reason = reasonText(o.reason);
  return h(
    'tr',
    { 'data-status': o.status, 'data-platform': o.platform },
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
            o.status === 'hit' ? 'Open profile' : 'Check yourself',
            h('span', { class: 'visually-hidden' }, ` on ${o.platform} (opens in a new tab)`),
          )
        : '–',
    ),
  );
}
