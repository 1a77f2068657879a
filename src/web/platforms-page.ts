/**
 * The platforms page: every platform of the catalogue by category, with counts.
 */
import { createApiClient } from './api-client.js';
import type { ApiFailure } from './api-failure.js';
import { localKeyStore } from './api-key-store.js';
import type { CategoryInfo, PlatformInfo } from './api-types.js';
import { byId, h, safeHref } from './dom.js';
import { groupPlatforms } from './platform-groups.js';

const el = {
  summary: byId('summary', HTMLParagraphElement),
  filter: byId('platform-filter', HTMLInputElement),
  alert: byId('alert', HTMLDivElement),
  alertText: byId('alert-text', HTMLParagraphElement),
  retry: byId('retry-button', HTMLButtonElement),
  index: byId('category-index', HTMLElement),
  list: byId('categories', HTMLDivElement),
};

const keyStore = localKeyStore();
const client = createApiClient({ apiKey: () => keyStore.get() });
let platforms: readonly PlatformInfo[] = [];
const descriptions = new Map<string, string>();

function render(): void {
  const groups = groupPlatforms(platforms, el.filter.value);
  const shown = groups.reduce((n, g) => n + g.platforms.length, 0);
  const enabled = platforms.filter((p) => p.enabled).length;
  el.summary.textContent =
    el.filter.value.trim() === ''
      ? `${platforms.length} platforms in ${groups.length} categories; ${enabled} enabled.`
      : `${shown} of ${platforms.length} platforms match.`;
  el.index.hidden = groups.length === 0;
  el.index.replaceChildren(
    h(
      'ul',
      {},
      ...groups.map((g) =>
        h('li', {}, h('a', { href: `#category-${g.category}` }, `${g.category} (${g.platforms.length})`)),
      ),
    ),
  );
  el.list.replaceChildren(
    ...groups.map((g) =>
      h(
        'section',
        { class: 'panel category', id: `category-${g.category}`, 'aria-labelledby': `heading-${g.category}` },
        h(
          'h2',
          { id: `heading-${g.category}` },
          `${g.category} `,
          h(
            'span',
            { class: 'count' },
            `${g.platforms.length} ${g.platforms.length === 1 ? 'platform' : 'platforms'}` +
              (g.enabled < g.platforms.length ? `, ${g.enabled} enabled` : ''),
          ),
        ),
        descriptions.has(g.category) ? h('p', { class: 'hint' }, descriptions.get(g.category)) : null,
        h(
          'ul',
          { class: 'platform-list' },
          ...g.platforms.map((p) => {
            const href = safeHref(p.url);
            return h(
              'li',
              { 'data-enabled': String(p.enabled) },
              href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, p.name) : p.name,
              p.nsfw ? h('span', { class: 'tag' }, ' (adult)') : null,
              p.enabled
                ? null
                : h(
                    'span',
                    { class: 'tag' },
                    ` (disabled${p.disabledReason ? `: ${p.disabledReason}` : ''})`,
                  ),
              // Its hits are "could not tell" until a control reads miss again: say why.
              p.enabled && p.health?.state === 'rule_drift'
                ? h('span', { class: 'tag' }, ` (rule drift${p.health.reason ? `: ${p.health.reason}` : ''})`)
                : null,
            );
          }),
        ),
      ),
    ),
  );
}

async function load(): Promise<void> {
  el.alert.hidden = true;
  el.summary.textContent = 'Loading the platforms…';
  try {
    const [list, categories] = await Promise.all([client.listPlatforms(), client.listCategories()]);
    platforms = list.platforms;
    for (const c of categories.categories as readonly CategoryInfo[]) descriptions.set(c.name, c.description);
    render();
  } catch (error) {
    const failure = (error as { failure?: ApiFailure }).failure;
    el.summary.textContent = 'The platforms could not be loaded.';
    el.alertText.textContent = failure ? failure.message : String(error);
    el.alert.hidden = false;
  }
}

el.filter.addEventListener('input', render);
el.retry.addEventListener('click', () => void load());
void load();
