/**
 * The watchlists page: for a key holder, create a watchlist, run it, and see
 * its changes and webhook deliveries (with redelivery). Only the public API.
 */
import { ApiError } from './api-failure.js';
import { localKeyStore } from './api-key-store.js';
import { byId, h, safeHref } from './dom.js';
import {
  createWatchlistClient,
  type DeliveryView,
  lastRunText,
  namesFromText,
  type WatchlistView,
} from './watchlist-client.js';

const el = {
  keyForm: byId('key-form', HTMLFormElement),
  keyInput: byId('api-key', HTMLInputElement),
  keyStatus: byId('key-status', HTMLParagraphElement),
  alert: byId('alert', HTMLDivElement),
  alertText: byId('alert-text', HTMLParagraphElement),
  createForm: byId('create-form', HTMLFormElement),
  names: byId('names', HTMLTextAreaElement),
  interval: byId('interval', HTMLInputElement),
  webhook: byId('webhook', HTMLInputElement),
  everyRun: byId('every-run', HTMLInputElement),
  secret: byId('secret', HTMLParagraphElement),
  listStatus: byId('list-status', HTMLParagraphElement),
  table: byId('watchlists', HTMLTableElement),
  detail: byId('detail', HTMLElement),
  detailHeading: byId('detail-heading', HTMLHeadingElement),
  changes: byId('changes', HTMLTableElement),
  deliveries: byId('deliveries', HTMLTableElement),
};

const keyStore = localKeyStore();
const client = createWatchlistClient({ apiKey: () => keyStore.get() });
let selected: string | undefined;
/** While a run is under way the list is read again this often (ms), so its end shows by itself. */
const FOLLOW_MS = 2_000;
let follow: ReturnType<typeof setTimeout> | undefined;
/** Watchlists asked to run, with the runs they had then: followed until one more has finished. */
const asked = new Map<string, number>();

function showError(error: unknown): void {
  el.alert.hidden = false;
  el.alertText.textContent =
    error instanceof ApiError
      ? error.failure.message
      : error instanceof Error
        ? error.message
        : String(error);
}

function clearError(): void {
  el.alert.hidden = true;
}

const when = (iso: string) => new Date(iso).toLocaleString();

function button(label: string, onClick: () => Promise<void>): HTMLButtonElement {
  const b = h('button', { type: 'button' }, label);
  b.addEventListener('click', () => {
    clearError();
    onClick().catch(showError);
  });
  return b;
}

function row(w: WatchlistView): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', {}, w.names.join(', ')),
    h('td', {}, `${Math.round(w.intervalSeconds / 3600)} h`),
    h('td', {}, w.running ? 'running' : when(w.nextRunAt)),
    h('td', {}, lastRunText(w)),
    h('td', {}, w.webhookUrl ?? '—'),
    h(
      'td',
      {},
      button('Run now', async () => {
        asked.set(w.id, w.runs);
        await client.run(w.id);
        await refresh();
      }),
      button('Changes', () => showDetail(w)),
      button('Delete', async () => {
        await client.remove(w.id);
        if (selected === w.id) el.detail.hidden = true;
        await refresh();
      }),
    ),
  );
}

function deliveryRow(w: WatchlistView, d: DeliveryView): HTMLTableRowElement {
  const last = d.attempts.at(-1);
  return h(
    'tr',
    {},
    h('td', {}, when(d.createdAt)),
    h('td', {}, `${d.eventType} (${d.eventId})`),
    h('td', {}, d.state + (d.nextAttemptAt ? `, next try ${when(d.nextAttemptAt)}` : '')),
    h('td', {}, `${d.attempts.length}${last ? ` (last: ${last.status ?? last.error ?? ''})` : ''}`),
    h(
      'td',
      {},
      button('Send again', async () => {
        await client.redeliver(w.id, d.id);
        await showDetail(w);
      }),
    ),
  );
}

async function showDetail(w: WatchlistView): Promise<void> {
  selected = w.id;
  const [changes, deliveries] = await Promise.all([client.changes(w.id), client.deliveries(w.id)]);
  el.detail.hidden = false;
  el.detailHeading.textContent = `Changes of ${w.names.join(', ')}`;
  el.changes.tBodies[0]!.replaceChildren(
    ...(changes.length === 0
      ? [
          h(
            'tr',
            {},
            h('td', { colspan: 4 }, 'No change yet: the first run sets what later runs are compared with.'),
          ),
        ]
      : changes
          .slice()
          .reverse()
          .map((c) => {
            const href = safeHref(c.url);
            return h(
              'tr',
              {},
              h('td', {}, when(c.at)),
              h('td', {}, c.username),
              h(
                'td',
                {},
                href
                  ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, c.platform)
                  : c.platform,
              ),
              h('td', {}, `${c.kind} (${c.from} → ${c.to})`),
            );
          })),
  );
  el.deliveries.tBodies[0]!.replaceChildren(
    ...(deliveries.length === 0
      ? [h('tr', {}, h('td', { colspan: 5 }, 'No delivery yet.'))]
      : deliveries.map((d) => deliveryRow(w, d))),
  );
}

async function refresh(): Promise<void> {
  if (!keyStore.get()) {
    el.keyStatus.textContent = 'Save your API key to see and create watchlists.';
    el.listStatus.textContent = '';
    el.table.hidden = true;
    return;
  }
  el.keyStatus.textContent = 'A key is saved in this browser.';
  const watchlists = await client.list();
  el.listStatus.textContent =
    watchlists.length === 0
      ? 'No watchlist yet.'
      : `${watchlists.length} watchlist${watchlists.length === 1 ? '' : 's'}.`;
  el.table.hidden = watchlists.length === 0;
  el.table.tBodies[0]!.replaceChildren(...watchlists.map(row));
  clearTimeout(follow);
  for (const w of watchlists) if ((asked.get(w.id) ?? Number.POSITIVE_INFINITY) < w.runs) asked.delete(w.id);
  if (watchlists.some((w) => w.running || w.runs === 0 || asked.has(w.id)))
    follow = setTimeout(() => refresh().catch(showError), FOLLOW_MS);
}

el.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = el.keyInput.value.trim();
  if (key) keyStore.set(key);
  el.keyInput.value = '';
  clearError();
  refresh().catch(showError);
});

el.createForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearError();
  const hours = Number(el.interval.value);
  client
    .create({
      names: namesFromText(el.names.value),
      ...(Number.isFinite(hours) && hours > 0 ? { intervalSeconds: Math.round(hours * 3600) } : {}),
      ...(el.webhook.value.trim() ? { webhookUrl: el.webhook.value.trim() } : {}),
      ...(el.everyRun.checked ? { notify: 'every_run' as const } : {}),
    })
    .then(async (created) => {
      el.names.value = '';
      el.secret.hidden = false;
      el.secret.textContent = `Created. Webhook secret, shown only now: ${created.webhookSecret ?? ''}`;
      await refresh();
    })
    .catch(showError);
});

refresh().catch(showError);
