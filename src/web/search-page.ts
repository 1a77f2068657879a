/**
 * The search page: validate, start, follow live, filter, export, share.
 * Talks to the service only through the public API (api-client.ts).
 */

import { usernameProblem } from '../catalogue/username-rule.js';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import { OUTCOME_STATUSES } from '../engine/verdict/outcome.js';
import { createApiClient, type SearchOptions, type Tier } from './api-client.js';
import type { ApiFailure, RateLimitState } from './api-failure.js';
import { localKeyStore } from './api-key-store.js';
import type { CategoryInfo, SearchSnapshot, SearchStatus } from './api-types.js';
import { byId, download, h } from './dom.js';
import { exportFileName, toCsv, toJson } from './export-format.js';
import { failureMessage, isRetryable } from './failure-message.js';
import { type Following, type FollowMode, followSearch } from './follow-search.js';
import { followUpItems, followUpsStatus } from './follow-ups.js';
import { STATUS_LABELS } from './labels.js';
import { type LinkedAccounts, linkedAccounts, rowId } from './profile-details.js';
import {
  addSample,
  formatDuration,
  type ProgressCounts,
  type ProgressSample,
  progressView,
} from './progress.js';
import { resultRow } from './result-row.js';
import {
  applyFilter,
  categoriesOf,
  countByStatus,
  DEFAULT_FILTER,
  emptyMessage,
  mergeOutcomes,
  PAGE_SIZE,
  pageOf,
  type ResultFilter,
  type SortKey,
} from './results.js';
import { searchSummary } from './summary.js';

/** A snapshot as read: `coverage` and `warning` are tolerated absent (services before they were added). */
type Snapshot = SearchSnapshot & { readonly coverage?: number; readonly warning?: string };

interface CurrentSearch {
  id: string;
  username: string;
  status: SearchStatus;
  startedAt: number;
  finishedAt?: number;
  estimatedSeconds: number;
  progress: ProgressCounts;
  /** Readings of the progress, for the pace of the time left. */
  samples: ProgressSample[];
  coverage?: number;
  warning?: string;
  queued: boolean;
  error?: string;
  createdAt: string;
  completedAt?: string;
  /** A recursive search's follow-ups, once completed (or that they are being started). */
  followUps?: Pick<Snapshot, 'followUps' | 'followUpsPending'>;
}

const el = {
  form: byId('search-form', HTMLFormElement),
  username: byId('username', HTMLInputElement),
  usernameError: byId('username-error', HTMLParagraphElement),
  options: byId('search-options', HTMLDetailsElement),
  optionsSummary: byId('options-summary', HTMLSpanElement),
  categoryChoices: byId('category-choices', HTMLFieldSetElement),
  categoriesStatus: byId('categories-status', HTMLParagraphElement),
  platformsField: byId('platforms-field', HTMLInputElement),
  tagsField: byId('tags-field', HTMLInputElement),
  topOnly: byId('top-only', HTMLInputElement),
  includeNsfw: byId('include-nsfw', HTMLInputElement),
  recursive: byId('recursive', HTMLInputElement),
  followUps: byId('follow-ups', HTMLElement),
  followUpsStatus: byId('follow-ups-status', HTMLParagraphElement),
  followUpsList: byId('follow-ups-list', HTMLUListElement),
  searchButton: byId('search-button', HTMLButtonElement),
  tier: byId('tier', HTMLElement),
  quota: byId('quota', HTMLSpanElement),
  keyForm: byId('key-form', HTMLFormElement),
  keyInput: byId('api-key', HTMLInputElement),
  forgetKey: byId('forget-key', HTMLButtonElement),
  keyStatus: byId('key-status', HTMLParagraphElement),
  alert: byId('alert', HTMLDivElement),
  alertText: byId('alert-text', HTMLParagraphElement),
  retry: byId('retry-button', HTMLButtonElement),
  statusPanel: byId('status-panel', HTMLElement),
  statusHeading: byId('status-heading', HTMLHeadingElement),
  statusLine: byId('status-line', HTMLParagraphElement),
  summary: byId('summary', HTMLParagraphElement),
  answered: byId('answered', HTMLElement),
  progress: byId('progress', HTMLProgressElement),
  percent: byId('percent', HTMLSpanElement),
  checked: byId('checked', HTMLElement),
  hits: byId('hits', HTMLElement),
  elapsed: byId('elapsed', HTMLElement),
  remaining: byId('remaining', HTMLElement),
  live: byId('live', HTMLParagraphElement),
  shareUrl: byId('share-url', HTMLInputElement),
  copyLink: byId('copy-link', HTMLButtonElement),
  copyStatus: byId('copy-status', HTMLParagraphElement),
  resultsPanel: byId('results-panel', HTMLElement),
  filters: byId('filters', HTMLFormElement),
  showAll: byId('show-all', HTMLInputElement),
  category: byId('category-filter', HTMLSelectElement),
  status: byId('status-filter', HTMLSelectElement),
  name: byId('name-filter', HTMLInputElement),
  sort: byId('sort', HTMLSelectElement),
  outcomeCounts: byId('outcome-counts', HTMLParagraphElement),
  shownCount: byId('shown-count', HTMLParagraphElement),
  exportCsv: byId('export-csv', HTMLButtonElement),
  reportLink: byId('report-link', HTMLAnchorElement),
  reportPdfLink: byId('report-pdf-link', HTMLAnchorElement),
  graphLink: byId('graph-link', HTMLAnchorElement),
  exportJson: byId('export-json', HTMLButtonElement),
  body: byId('results-body', HTMLTableSectionElement),
  noResults: byId('no-results', HTMLParagraphElement),
  pager: byId('pager', HTMLElement),
  previousPage: byId('previous-page', HTMLButtonElement),
  nextPage: byId('next-page', HTMLButtonElement),
  pageStatus: byId('page-status', HTMLSpanElement),
};

const keyStore = localKeyStore();
let keyState: 'none' | 'checking' | 'accepted' | 'rejected' | 'unverified' = keyStore.get()
  ? 'checking'
  : 'none';
let quota: RateLimitState | undefined;
/** When the search count resets (ms epoch), from the same reading as `quota`, so the line counts down. */
let quotaResetAt = 0;
/** The tier the service last said it served us with (X-Userscout-Tier). */
let servedTier: Tier | undefined;

const client = createApiClient({
  apiKey: () => keyStore.get(),
  onTier: (tier) => {
    servedTier = tier;
  },
  onRateLimit: (state, path) => {
    // Only POST /api/search counts against the tier's search limit; reads have their own.
    if (path === '/api/search') {
      quota = state;
      quotaResetAt = Date.now() + state.resetSeconds * 1000;
      renderAccount();
    }
  },
});

let current: CurrentSearch | undefined;
const outcomes = new Map<string, Outcome>();
let following: Following | undefined;
let followMode: FollowMode | undefined;
let filter: ResultFilter = DEFAULT_FILTER;
/** The page of results shown (0-based); back to the first whenever the filter changes. */
let pageIndex = 0;
let ticker: ReturnType<typeof setInterval> | undefined;
let renderPending = false;
/**
 * Rows whose details the user opened, by row id. A redraw (results arriving, a filter committed)
 * builds anew the rows whose outcome or links changed; without this it would close them, and
 * drop the keyboard's place.
 */
const openRows = new Set<string>();
/**
 * Rows as last drawn, by platform id, with what each was drawn from. A row whose outcome and
 * links did not change is kept as it is, so the keyboard stays where the user left it (a link in
 * its details too) and a screen reader has nothing new to announce.
 */
const drawnRows = new Map<
  string,
  { readonly outcome: Outcome; readonly links: string; readonly row: HTMLTableRowElement }
>();
let announcedQuarter = 0;

// ---------------------------------------------------------------- account

function renderAccount(): void {
  el.tier.textContent =
    keyState === 'accepted'
      ? `${servedTier ?? 'professional'} (API key)`
      : keyState === 'checking'
        ? 'checking the API key…'
        : keyState === 'rejected'
          ? 'free (the saved key was refused)'
          : keyState === 'unverified'
            ? 'API key saved (not yet confirmed)'
            : 'free';
  const resetIn = Math.ceil((quotaResetAt - Date.now()) / 1000);
  el.quota.textContent = !quota
    ? '· searches left are shown after your first search'
    : resetIn > 0
      ? `· ${quota.remaining} of ${quota.limit} searches left; the count resets in ${formatDuration(resetIn)}`
      : `· the count of ${quota.limit} searches has reset`;
}

async function verifyKey(): Promise<void> {
  if (!keyStore.get()) {
    keyState = 'none';
    renderAccount();
    return;
  }
  keyState = 'checking';
  renderAccount();
  try {
    await client.listCategories();
    keyState = 'accepted';
    el.keyStatus.textContent = 'Key accepted.';
  } catch (error) {
    const failure = (error as { failure?: ApiFailure }).failure;
    keyState = failure?.kind === 'unauthorized' ? 'rejected' : 'unverified';
    el.keyStatus.textContent =
      keyState === 'rejected'
        ? 'This key is unknown or revoked. Forget it to search on the free tier, or enter another.'
        : 'The key could not be checked now; it will be sent with your searches.';
  }
  renderAccount();
}

el.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = el.keyInput.value.trim();
  if (key === '') {
    el.keyStatus.textContent = 'Enter a key first.';
    el.keyInput.focus();
    return;
  }
  keyStore.set(key);
  el.keyInput.value = '';
  quota = undefined;
  void verifyKey();
  void loadCategories();
});

el.forgetKey.addEventListener('click', () => {
  keyStore.clear();
  keyState = 'none';
  quota = undefined;
  el.keyStatus.textContent = 'Key forgotten; searches use the free tier.';
  renderAccount();
  void loadCategories();
});

// ---------------------------------------------------------------- alerts

/** A rate-limit alert is rewritten every second, so its "in X min Y s" counts down with the quota line. */
let shownFailure: ApiFailure | undefined;

function showAlert(text: string, retry?: () => void): void {
  shownFailure = undefined;
  el.alertText.textContent = text;
  el.alert.hidden = false;
  el.retry.hidden = retry === undefined;
  el.retry.onclick = retry
    ? () => {
        hideAlert();
        retry();
      }
    : null;
}

function hideAlert(): void {
  shownFailure = undefined;
  el.alert.hidden = true;
  el.retry.onclick = null;
}

function showFailure(failure: ApiFailure, retry: () => void): void {
  if (failure.kind === 'unauthorized') {
    keyState = 'rejected';
    renderAccount();
  }
  if (failure.kind === 'rate_limited') {
    // One reading for both lines: the quota then resets exactly when the alert says.
    quotaResetAt = failure.retryAt;
    if (quota) quota = { ...quota, remaining: 0 };
    renderAccount();
  }
  showAlert(failureMessage(failure, Date.now()), isRetryable(failure) ? retry : undefined);
  if (failure.kind === 'rate_limited') shownFailure = failure;
}

/** Once a second: the quota line and a rate-limit alert count down. */
setInterval(() => {
  renderAccount();
  if (shownFailure && !el.alert.hidden) el.alertText.textContent = failureMessage(shownFailure, Date.now());
}, 1000);

// ---------------------------------------------------------------- validation

function validate(): string | undefined {
  const problem = usernameProblem(el.username.value);
  if (problem) {
    el.usernameError.textContent = `The username ${problem}.`;
    el.usernameError.hidden = false;
    el.username.setAttribute('aria-invalid', 'true');
  } else {
    el.usernameError.textContent = '';
    el.usernameError.hidden = true;
    el.username.removeAttribute('aria-invalid');
  }
  return problem;
}

el.username.addEventListener('input', () => {
  // Tell about a problem while typing only once one has been shown, so the field does not scold on the first key.
  if (!el.usernameError.hidden || el.username.value.length > 0) validate();
});

// ---------------------------------------------------------------- starting and opening

function shareUrlOf(id: string): string {
  return `${location.origin}/?id=${encodeURIComponent(id)}`;
}

async function startSearch(username: string, narrow: SearchOptions): Promise<void> {
  hideAlert();
  el.searchButton.disabled = true;
  try {
    const started = await client.startSearch(username, narrow);
    history.pushState({ id: started.queryId }, '', `/?id=${encodeURIComponent(started.queryId)}`);
    openSearch(started.queryId);
    announce(`Search for ${username} started on ${started.totalPlatforms} platforms.`);
  } catch (error) {
    const failure = (error as { failure?: ApiFailure }).failure ?? {
      kind: 'network' as const,
      message: String(error),
    };
    if (failure.kind === 'invalid' && failure.code === 'invalid_username') {
      el.usernameError.textContent = failure.message;
      el.usernameError.hidden = false;
      el.username.setAttribute('aria-invalid', 'true');
      el.username.focus();
    } else {
      showFailure(failure, () => void startSearch(username, narrow));
    }
  } finally {
    el.searchButton.disabled = false;
  }
}

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (validate()) {
    el.username.focus();
    return;
  }
  void startSearch(el.username.value, readSearchOptions());
});

// ---------------------------------------------------------------- search options

function checkedCategories(): string[] {
  return [...el.categoryChoices.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked')].map(
    (box) => box.value,
  );
}

/** A comma-separated field's entries, trimmed, empty ones left out. */
function listOf(field: HTMLInputElement): string[] {
  return field.value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function readSearchOptions(): SearchOptions {
  return {
    categories: checkedCategories(),
    platforms: listOf(el.platformsField),
    tags: listOf(el.tagsField),
    top: el.topOnly.checked,
    includeNsfw: el.includeNsfw.checked,
    recursive: el.recursive.checked,
  };
}

function renderOptionsSummary(): void {
  const { categories = [], platforms = [], tags = [], top, includeNsfw } = readSearchOptions();
  const parts = [
    top ? 'top platforms' : '',
    categories.length === 0 ? 'all categories' : categories.join(', '),
    platforms.length === 0
      ? ''
      : `${platforms.length} named ${platforms.length === 1 ? 'platform' : 'platforms'}`,
    tags.length === 0 ? '' : `tagged ${tags.join(', ')}`,
    includeNsfw ? 'NSFW included' : '',
  ].filter((p) => p !== '');
  el.optionsSummary.textContent = `(${parts.join('; ')})`;
}

function renderCategoryChoices(categories: readonly CategoryInfo[]): void {
  el.categoriesStatus.remove();
  el.categoryChoices.append(
    ...categories.map((c) =>
      h(
        'label',
        { title: c.description },
        h('input', { type: 'checkbox', name: 'categories', value: c.name }),
        `${c.name} (${c.platforms})`,
      ),
    ),
  );
}

let categoriesLoaded = false;

/** Loads the category choices once; a failure (a refused key, the network) is retried when the key changes. */
async function loadCategories(): Promise<void> {
  if (categoriesLoaded) return;
  try {
    const list = await client.listCategories();
    if (categoriesLoaded) return;
    categoriesLoaded = true;
    renderCategoryChoices(list.categories);
  } catch {
    el.categoriesStatus.textContent = 'The categories could not be loaded; searches cover every category.';
  }
}

el.options.addEventListener('change', renderOptionsSummary);
el.options.addEventListener('input', renderOptionsSummary);

function stopFollowing(): void {
  following?.stop();
  following = undefined;
  if (ticker !== undefined) clearInterval(ticker);
  ticker = undefined;
}

function openSearch(id: string): void {
  stopFollowing();
  hideAlert();
  outcomes.clear();
  openRows.clear();
  drawnRows.clear();
  current = undefined;
  followMode = undefined;
  announcedQuarter = 0;
  pageIndex = 0;
  showSummary({ text: '', low: false });
  el.statusPanel.hidden = false;
  el.resultsPanel.hidden = true;
  el.statusHeading.textContent = 'Opening the search…';
  el.statusLine.textContent = '';
  el.shareUrl.value = shareUrlOf(id);
  el.copyStatus.textContent = '';
  ticker = setInterval(renderProgress, 1000);
  following = followSearch(client, id, {
    snapshot: (search) => {
      adopt(search);
      scheduleRender();
    },
    result: (outcome) => {
      mergeOutcomes(outcomes, [outcome]);
      scheduleRender();
    },
    progress: (progress) => {
      if (current && progress.checked >= current.progress.checked) {
        current.progress = progress;
        current.samples = addSample(current.samples, { at: Date.now(), checked: progress.checked });
        current.queued = false;
      }
      scheduleRender();
    },
    mode: (mode) => {
      followMode = mode;
      scheduleRender();
    },
    done: (status, error) => {
      if (ticker !== undefined) clearInterval(ticker);
      ticker = undefined;
      if (current) {
        current.status = status;
        if (error !== undefined) current.error = error;
      }
      const hits = countByStatus(outcomes.values()).hit;
      announce(
        status === 'completed'
          ? `Search finished: ${hits} ${hits === 1 ? 'hit' : 'hits'} on ${current?.progress.total ?? 0} platforms.`
          : `Search failed: ${error ?? 'unknown error'}.`,
      );
      scheduleRender();
    },
    failed: (failure) => {
      if (ticker !== undefined) clearInterval(ticker);
      ticker = undefined;
      if (failure.kind === 'not_found' || (failure.kind === 'invalid' && failure.code === 'invalid_id')) {
        el.statusPanel.hidden = true;
        el.resultsPanel.hidden = true;
      }
      showFailure(failure, () => openSearch(id));
      scheduleRender();
    },
  });
}

function adopt(search: Snapshot): void {
  const startedAt = Date.parse(search.createdAt);
  const finishedAt = search.completedAt ? Date.parse(search.completedAt) : undefined;
  const previous = current?.id === search.queryId ? current : undefined;
  const progress =
    previous && previous.progress.checked > search.progress.checked ? previous.progress : search.progress;
  current = {
    id: search.queryId,
    username: search.username,
    status: search.status,
    startedAt,
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    estimatedSeconds: search.estimatedTime,
    progress,
    samples: addSample(previous?.samples ?? [], { at: Date.now(), checked: progress.checked }),
    ...(search.coverage !== undefined ? { coverage: search.coverage } : {}),
    ...(search.warning !== undefined ? { warning: search.warning } : {}),
    queued: search.progress.queued,
    ...(search.error !== undefined ? { error: search.error } : {}),
    createdAt: search.createdAt,
    ...(search.completedAt !== undefined ? { completedAt: search.completedAt } : {}),
    ...(search.followUps !== undefined || search.followUpsPending
      ? { followUps: { followUps: search.followUps, followUpsPending: search.followUpsPending } }
      : {}),
  };
  mergeOutcomes(outcomes, search.results);
  if (el.username.value === '') el.username.value = search.username;
}

function announce(text: string): void {
  el.live.textContent = text;
}

// ---------------------------------------------------------------- rendering

/** Results can arrive hundreds a second; the table is redrawn at most every RENDER_EVERY_MS. */
const RENDER_EVERY_MS = 100;

function scheduleRender(): void {
  if (renderPending) return;
  renderPending = true;
  setTimeout(() => {
    renderPending = false;
    renderProgress();
    renderResults();
  }, RENDER_EVERY_MS);
}

function renderProgress(): void {
  if (!current) return;
  const view = progressView({
    progress: current.progress,
    startedAt: current.startedAt,
    now: Date.now(),
    estimatedSeconds: current.estimatedSeconds,
    samples: current.samples,
    ...(current.status !== 'running' ? { finishedAt: current.finishedAt ?? Date.now() } : {}),
  });
  const { checked, total, hits } = current.progress;
  const summary = currentSummary(current);
  el.statusHeading.textContent =
    current.status === 'running' ? `Searching “${current.username}”` : `Results for “${current.username}”`;
  el.statusLine.textContent =
    current.status === 'completed'
      ? 'Finished.'
      : current.status === 'error'
        ? `The search failed: ${current.error ?? 'unknown error'}.`
        : current.queued
          ? 'Waiting for a free slot…'
          : `Running${followMode === 'polling' ? ' (checking every second)' : ' (live)'}…`;
  el.progress.value = view.percent;
  el.progress.setAttribute('aria-valuetext', `${view.percent}%: ${checked} of ${total} platforms checked`);
  el.percent.textContent = `${view.percent}%`;
  el.checked.textContent = `${checked} / ${total}`;
  el.hits.textContent = String(hits);
  el.answered.textContent = `${summary.coverage.answered} / ${summary.coverage.checked}`;
  showSummary(summary);
  el.elapsed.textContent = formatDuration(view.elapsedSeconds);
  el.remaining.textContent = current.status !== 'running' ? 'done' : view.remainingText;
  const quarter = Math.floor(view.percent / 25);
  if (current.status === 'running' && quarter > announcedQuarter && quarter < 4) {
    announcedQuarter = quarter;
    announce(`${quarter * 25}% checked, ${hits} ${hits === 1 ? 'hit' : 'hits'} so far.`);
  }
}

/**
 * The search's one summary; a low coverage turns it into an alert. Written only when it changes,
 * so a screen reader announces the alert once, not at every redraw.
 */
function showSummary(summary: { readonly text: string; readonly low: boolean }): void {
  if (summary.low) el.summary.setAttribute('role', 'alert');
  else el.summary.removeAttribute('role');
  el.summary.dataset.low = String(summary.low);
  if (el.summary.textContent !== summary.text) el.summary.textContent = summary.text;
}

function currentSummary(search: CurrentSearch) {
  return searchSummary({
    progress: search.progress,
    outcomes: [...outcomes.values()],
    running: search.status === 'running',
    api: {
      ...(search.coverage !== undefined ? { coverage: search.coverage } : {}),
      ...(search.warning !== undefined ? { warning: search.warning } : {}),
    },
  });
}

function statusOptionLabel(status: OutcomeStatus, count: number): string {
  return `${STATUS_LABELS[status].label} (${status}): ${count}`;
}

function syncFilterControls(all: readonly Outcome[]): void {
  const categories = categoriesOf(all);
  const wanted = ['', ...categories];
  const have = [...el.category.options].map((o) => o.value);
  if (wanted.join('\n') !== have.join('\n')) {
    const selected = el.category.value;
    el.category.replaceChildren(
      h('option', { value: '' }, 'All categories'),
      ...categories.map((c) => h('option', { value: c }, c)),
    );
    el.category.value = wanted.includes(selected) ? selected : '';
  }
  const counts = countByStatus(all);
  const selectedStatus = el.status.value;
  el.status.replaceChildren(
    h('option', { value: '' }, `All outcomes: ${all.length}`),
    ...OUTCOME_STATUSES.map((s) => h('option', { value: s }, statusOptionLabel(s, counts[s]))),
  );
  el.status.value = selectedStatus;
  el.status.disabled = !filter.showAll;
  el.outcomeCounts.textContent = OUTCOME_STATUSES.map((s) => `${STATUS_LABELS[s].label}: ${counts[s]}`).join(
    ' · ',
  );
}

function renderResults(): void {
  if (!current) return;
  const all = [...outcomes.values()];
  el.resultsPanel.hidden = false;
  syncFilterControls(all);
  const shown = applyFilter(all, filter);
  const page = pageOf(shown, pageIndex);
  pageIndex = page.index;
  const linked = linkedAccounts(all);
  const focused = focusedRow();
  noteOpenRows();
  showRows(page.items.map((o) => rowOf(o, linked(o.platformId))));
  keepRowState(focused);
  el.noResults.hidden = shown.length > 0;
  el.noResults.textContent = emptyMessage(filter, all.length, current.status === 'running');
  const what = filter.showAll ? 'results' : 'hits';
  el.shownCount.textContent = `Showing ${shown.length} ${what} of ${all.length} checked platforms`;
  el.pager.hidden = page.count <= 1;
  el.pageStatus.textContent = `Page ${page.index + 1} of ${page.count} (rows ${shown.length === 0 ? 0 : page.index * PAGE_SIZE + 1}–${page.index * PAGE_SIZE + page.items.length})`;
  el.previousPage.disabled = page.index === 0;
  el.nextPage.disabled = page.index >= page.count - 1;
  el.exportCsv.disabled = shown.length === 0;
  el.exportJson.disabled = shown.length === 0;
  renderFollowUps();
  // The service's self-contained report of the whole search (every outcome, not only those shown),
  // as HTML and printed to PDF, and its graph of accounts, links and follow-ups.
  const files: [HTMLAnchorElement, string][] = [
    [el.reportLink, 'report.html'],
    [el.reportPdfLink, 'report.pdf'],
    [el.graphLink, 'graph.graphml'],
  ];
  for (const [link, file] of files) {
    link.hidden = !current;
    if (current) link.href = `/api/search/${encodeURIComponent(current.id)}/${file}`;
  }
}

/** A recursive search's follow-ups: which hit gave each new name, and a link to its search. */
function renderFollowUps(): void {
  const shown = current?.followUps;
  el.followUps.hidden = shown === undefined;
  if (!shown) return;
  el.followUpsStatus.textContent = followUpsStatus(shown);
  el.followUpsList.replaceChildren(
    ...followUpItems(shown.followUps ?? [], (id) => outcomes.get(id)?.platform ?? id),
  );
}

function readFilter(): ResultFilter {
  const status = el.status.value as OutcomeStatus | '';
  return {
    showAll: el.showAll.checked,
    category: el.category.value,
    status: el.showAll.checked ? status : '',
    text: el.name.value,
    sort: (el.sort.value === 'responseTime' ? 'responseTime' : 'name') satisfies SortKey,
  };
}

el.filters.addEventListener('input', () => {
  filter = readFilter();
  pageIndex = 0;
  scheduleRender();
});
el.filters.addEventListener('change', () => {
  filter = readFilter();
  pageIndex = 0;
  scheduleRender();
});

/** The row of an outcome: the one drawn before when neither the outcome nor its links changed. */
function rowOf(outcome: Outcome, linked: LinkedAccounts): HTMLTableRowElement {
  const links = [...linked.linksTo, null, ...linked.linkedFrom].map((o) => o?.platformId ?? '|').join(' ');
  const drawn = drawnRows.get(outcome.platformId);
  if (drawn && drawn.outcome === outcome && drawn.links === links) return drawn.row;
  const row = resultRow(outcome, linked);
  drawnRows.set(outcome.platformId, { outcome, links, row });
  return row;
}

/** Puts `rows` in the table in their order, moving only those not already in their place. */
function showRows(rows: readonly HTMLTableRowElement[]): void {
  const body = el.body;
  rows.forEach((row, i) => {
    if (body.rows[i] !== row) body.insertBefore(row, body.rows[i] ?? null);
  });
  for (let extra = body.rows.length - rows.length; extra > 0; extra--) body.lastElementChild?.remove();
}

/** Notes which of the rows shown have their details open, before they are drawn anew. */
function noteOpenRows(): void {
  for (const row of el.body.rows) {
    const details = row.querySelector('details');
    if (!row.id || !details) continue;
    if (details.open) openRows.add(row.id);
    else openRows.delete(row.id);
  }
}

/** The row holding the keyboard's focus, and whether it was on the row's details summary. */
function focusedRow(): { readonly id: string; readonly summary: boolean } | undefined {
  const active = document.activeElement;
  if (!active || !el.body.contains(active)) return undefined;
  const row = active.closest('tr');
  return row?.id ? { id: row.id, summary: active.tagName === 'SUMMARY' } : undefined;
}

function keepRowState(focused: ReturnType<typeof focusedRow>): void {
  for (const id of openRows) {
    const details = document.getElementById(id)?.querySelector('details');
    if (details) details.open = true;
  }
  // A row kept as it was keeps the keyboard where it was: only a row drawn anew loses it.
  if (!focused || el.body.contains(document.activeElement)) return;
  const row = document.getElementById(focused.id);
  const target = focused.summary ? row?.querySelector('summary') : row;
  (target as HTMLElement | null | undefined)?.focus({ preventScroll: true });
}

function turnPage(by: number): void {
  pageIndex += by;
  renderResults();
  // The new rows start at the top of the table: bring it into view, and keep the keyboard on the pager.
  el.resultsPanel.scrollIntoView({ block: 'start' });
}
/**
 * A linked account's link goes to that platform's row; when the filters or the page hide it,
 * they are cleared (every outcome shown, if it is not a hit) and the page that holds it is shown.
 */
el.body.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest('a[data-row]');
  if (!(link instanceof HTMLAnchorElement)) return;
  const target = [...outcomes.values()].find((o) => rowId(o.platformId) === link.dataset.row);
  if (!target) return;
  event.preventDefault();
  if (!document.getElementById(rowId(target.platformId))) {
    el.category.value = '';
    el.name.value = '';
    el.status.value = '';
    if (target.status !== 'hit') el.showAll.checked = true;
    filter = readFilter();
    pageIndex = Math.floor(applyFilter(outcomes.values(), filter).indexOf(target) / PAGE_SIZE);
    renderResults();
  }
  const row = document.getElementById(rowId(target.platformId));
  row?.scrollIntoView({ block: 'center' });
  row?.focus({ preventScroll: true });
});
el.previousPage.addEventListener('click', () => turnPage(-1));
el.nextPage.addEventListener('click', () => turnPage(1));
el.filters.addEventListener('submit', (event) => event.preventDefault());

// ---------------------------------------------------------------- export and share

el.exportCsv.addEventListener('click', () => {
  if (!current) return;
  const shown = applyFilter(outcomes.values(), filter);
  download(exportFileName(current.username, new Date(), 'csv'), 'text/csv', toCsv(current.username, shown));
});

el.exportJson.addEventListener('click', () => {
  if (!current) return;
  const shown = applyFilter(outcomes.values(), filter);
  download(
    exportFileName(current.username, new Date(), 'json'),
    'application/json',
    toJson({
      queryId: current.id,
      username: current.username,
      status: current.status,
      createdAt: current.createdAt,
      ...(current.completedAt !== undefined ? { completedAt: current.completedAt } : {}),
      exportedAt: new Date().toISOString(),
      results: shown,
    }),
  );
});

el.copyLink.addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(el.shareUrl.value);
    el.copyStatus.textContent = 'Link copied.';
  } catch {
    el.shareUrl.focus();
    el.shareUrl.select();
    el.copyStatus.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected link.';
  }
});

// ---------------------------------------------------------------- start-up

function openFromLocation(): void {
  const id = new URLSearchParams(location.search).get('id');
  if (id) {
    openSearch(id);
  } else {
    stopFollowing();
    current = undefined;
    el.statusPanel.hidden = true;
    el.resultsPanel.hidden = true;
  }
}

window.addEventListener('popstate', openFromLocation);
renderAccount();
renderOptionsSummary();
void verifyKey();
void loadCategories();
openFromLocation();
