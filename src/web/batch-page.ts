/**
 * The page for many names at once: a pasted list or a CSV file becomes one
 * batch (POST /api/searches), and each name gets its own result table of
 * hits, polled about once a second until its search ends (and, followed up,
 * until its follow-up searches are listed).
 */
import { createApiClient } from './api-client.js';
import { ApiError } from './api-failure.js';
import { localKeyStore } from './api-key-store.js';
import type { SearchSnapshot } from './api-types.js';
import { byId, h, safeHref } from './dom.js';
import { failureMessage } from './failure-message.js';
import { followUpItems, followUpsStatus } from './follow-ups.js';
import { namesFromCsv, namesFromText } from './name-list.js';

const POLL_MS = 1000;

const el = {
  form: byId('batch-form', HTMLFormElement),
  names: byId('names', HTMLTextAreaElement),
  file: byId('names-file', HTMLInputElement),
  button: byId('batch-button', HTMLButtonElement),
  recursive: byId('recursive', HTMLInputElement),
  status: byId('batch-status', HTMLParagraphElement),
  alert: byId('alert', HTMLDivElement),
  alertText: byId('alert-text', HTMLParagraphElement),
  results: byId('batch-results', HTMLDivElement),
};

const keyStore = localKeyStore();
let searchesLeft: number | undefined;
const client = createApiClient({
  apiKey: () => keyStore.get(),
  onRateLimit: (state, path) => {
    if (path === '/api/searches') searchesLeft = state.remaining;
  },
});

function showAlert(text: string | undefined): void {
  el.alert.hidden = text === undefined;
  el.alertText.textContent = text ?? '';
}

/** One name's section: a heading, a status line, its table of hits and, followed up, its follow-ups. */
function nameSection(username: string, index: number) {
  const headingId = `batch-heading-${index}`;
  const status = h('p', { class: 'status-line', role: 'status' }, 'Running…');
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'results' },
    h('caption', { class: 'visually-hidden' }, `Hits for ${username}`),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Platform'),
        h('th', { scope: 'col' }, 'Category'),
        h('th', { scope: 'col' }, 'Profile'),
      ),
    ),
    body,
  );
  const followUpsStatusLine = h('p', { class: 'hint', role: 'status' });
  const followUpsList = h('ul');
  const followUps = h(
    'div',
    { class: 'follow-ups', hidden: true },
    h('h3', {}, 'Follow-up searches'),
    followUpsStatusLine,
    followUpsList,
  );
  const section = h(
    'section',
    { class: 'panel batch-result', 'aria-labelledby': headingId, 'data-username': username },
    h('h2', { id: headingId }, `Results for “${username}”`),
    status,
    table,
    followUps,
  );
  const render = (search: SearchSnapshot) => {
    body.replaceChildren(
      ...search.results.map((r) => {
        const href = safeHref(r.url);
        return h(
          'tr',
          {},
          h('td', {}, r.platform),
          h('td', {}, r.category),
          h('td', {}, href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, r.url) : r.url),
        );
      }),
    );
    const hits = search.results.length;
    const { checked, total } = search.progress;
    status.textContent =
      search.status === 'running'
        ? `Running: ${checked} of ${total} platforms checked, ${hits} hit${hits === 1 ? '' : 's'} so far.`
        : search.status === 'completed'
          ? `Finished: ${hits} hit${hits === 1 ? '' : 's'} among ${total} platforms.`
          : `Ended with an error: ${search.error ?? 'unknown'}. ${hits} hit${hits === 1 ? '' : 's'} found before.`;
    followUps.hidden = search.followUps === undefined && !search.followUpsPending;
    if (followUps.hidden) return;
    followUpsStatusLine.textContent = followUpsStatus(search);
    const names = new Map(search.results.map((r) => [r.platformId, r.platform]));
    followUpsList.replaceChildren(...followUpItems(search.followUps ?? [], (id) => names.get(id) ?? id));
  };
  return { section, render, fail: (text: string) => (status.textContent = text) };
}

async function follow(id: string, view: ReturnType<typeof nameSection>): Promise<void> {
  // Bounded by the search itself: it ends (completed or error) or expires (404).
  for (;;) {
    try {
      const search = await client.getHits(id);
      view.render(search);
      // A recursive search's follow-ups start just after it completes: read it until they are listed.
      if (search.status !== 'running' && !search.followUpsPending) return;
    } catch (error) {
      if (error instanceof ApiError && error.failure.kind === 'not_found') {
        view.fail('This search has expired.');
        return;
      }
      // Anything else may pass: the next poll tries again.
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

el.file.addEventListener('change', () => {
  const file = el.file.files?.[0];
  if (!file) return;
  void file.text().then((text) => {
    const names = namesFromCsv(text);
    el.names.value = names.join('\n');
    el.status.textContent = `${names.length} name${names.length === 1 ? '' : 's'} read from ${file.name}.`;
  });
});

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const names = namesFromText(el.names.value);
  if (names.length === 0) {
    showAlert('Enter at least one username, or choose a CSV file.');
    return;
  }
  showAlert(undefined);
  el.button.disabled = true;
  el.status.textContent = `Starting ${names.length} search${names.length === 1 ? '' : 'es'}…`;
  client
    .startBatch(names, { recursive: el.recursive.checked })
    .then(({ searches }) => {
      el.results.replaceChildren();
      const views = searches.map((s, i) => {
        const view = nameSection(s.username, i);
        el.results.append(view.section);
        return { id: s.queryId, view };
      });
      el.status.textContent = `Started ${searches.length} search${searches.length === 1 ? '' : 'es'}${
        searchesLeft === undefined ? '' : `; ${searchesLeft} left in this window`
      }.`;
      return Promise.all(views.map(({ id, view }) => follow(id, view)));
    })
    .then(
      () => {
        if (el.results.childElementCount > 0) el.status.textContent += ' All finished.';
      },
      (error: unknown) => {
        el.status.textContent = '';
        showAlert(error instanceof ApiError ? failureMessage(error.failure, Date.now()) : String(error));
      },
    )
    .finally(() => {
      el.button.disabled = false;
    });
});
