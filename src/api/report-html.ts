/**
 * A search as one self-contained HTML file: inline style, no script, no image
 * or font fetched, a Content-Security-Policy that forbids any request, every
 * value escaped. Printable to PDF from any browser. Built from the body of
 * `GET /api/search?id=&include=all` (search-response.ts), so the API's report
 * and the CLI's `--format html` are the same document. Pure.
 */
import type { SearchJson } from './search-response.js';

export interface ReportHealth {
  readonly id: string;
  readonly name: string;
  readonly verdict: string;
  readonly reason?: string;
}

export interface ReportExtras {
  /** ms epoch the report was made. */
  readonly generatedAt: number;
  /** Platforms known to be broken or blocked when the report was made. */
  readonly health?: readonly ReportHealth[];
  /** Who made it, e.g. `userscout 0.1.0`. */
  readonly generator?: string;
  /** Where a follow-up search's own report is, from this one; without it (or undefined), its id is shown unlinked. */
  readonly followUpHref?: (queryId: string) => string | undefined;
}

type ResultJson = SearchJson['results'][number];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in HTML content and in quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A link only to http(s); anything else is shown as text. */
function link(url: string | undefined, text?: string): string {
  if (!url) return '';
  const safe = /^https?:\/\//i.test(url);
  const label = escapeHtml(text ?? url);
  return safe ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer nofollow">${label}</a>` : label;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;border-bottom:1px solid #ddd;padding-bottom:.25rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid #eee}
th{background:#f6f6f6}td.n{text-align:right}.muted{color:#666}.warn{background:#fff4e5;border:1px solid #f0b35b;padding:.5rem .75rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.25rem 0}dt{color:#666}dd{margin:0;overflow-wrap:anywhere}
a{color:#0b57d0;overflow-wrap:anywhere}code{font-size:.9em}
@media print{body{margin:0;max-width:none}a{color:inherit}h2{break-after:avoid}tr{break-inside:avoid}}
`;

function profileBlock(result: ResultJson): string {
  const p = result.profile;
  if (!p) return '<span class="muted">no details on the page</span>';
  const rows: [string, string][] = [];
  if (p.fullName) rows.push(['Name', escapeHtml(p.fullName)]);
  if (p.bio) rows.push(['Bio', escapeHtml(p.bio)]);
  if (p.location) rows.push(['Location', escapeHtml(p.location)]);
  if (p.createdAt) rows.push(['Joined', escapeHtml(p.createdAt)]);
  if (p.followers !== undefined) rows.push(['Followers', escapeHtml(p.followers)]);
  if (p.following !== undefined) rows.push(['Following', escapeHtml(p.following)]);
  if (p.website) rows.push(['Website', link(p.website)]);
  if (p.avatarUrl) rows.push(['Avatar', link(p.avatarUrl)]);
  if (p.links?.length) rows.push(['Links', p.links.map((l) => link(l)).join('<br>')]);
  for (const [name, id] of Object.entries(p.ids ?? {})) rows.push([escapeHtml(name), escapeHtml(id)]);
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function evidenceBlock(result: ResultJson): string {
  const e = result.evidence as Record<string, unknown>;
  const rows: [string, string][] = [['Rule', `<code>${escapeHtml(e.rule)}</code>`]];
  if (e.httpStatus !== undefined) rows.push(['HTTP status', escapeHtml(e.httpStatus)]);
  if (typeof e.finalUrl === 'string') rows.push(['Final URL', link(e.finalUrl)]);
  rows.push(['Attempts', escapeHtml(e.attempts)]);
  // Whatever else the evidence carries (a snippet around the marker, the control check), as text.
  for (const [key, value] of Object.entries(e)) {
    if (['rule', 'httpStatus', 'finalUrl', 'attempts', 'bytesRead', 'cachedAt'].includes(key)) continue;
    rows.push([
      escapeHtml(key),
      `<code>${escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))}</code>`,
    ]);
  }
  if (result.linkedFrom?.length) rows.push(['Linked from', escapeHtml(result.linkedFrom.join(', '))]);
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

const when = (iso: string | undefined) =>
  iso ? escapeHtml(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')) : '—';

/** The report, a whole HTML document. */
export function renderReport(search: SearchJson, extras: ReportExtras): string {
  const results = search.results;
  const hits = results.filter((r) => r.status === 'hit');
  const misses = results.filter((r) => r.status === 'miss');
  const others = results.filter((r) => r.status !== 'hit' && r.status !== 'miss');
  const byReason = new Map<string, ResultJson[]>();
  for (const r of others) {
    const key = `${r.status} (${r.reason ?? 'no reason'})`;
    byReason.set(key, [...(byReason.get(key) ?? []), r]);
  }
  const reasons = [...byReason].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const names = new Map(results.map((r) => [r.platformId, r.platform]));
  const p = search.progress;
  const title = `userscout report: ${search.username}`;

  const summary = `<table><tbody>
<tr><th>Platforms searched</th><td class="n">${p.total}</td></tr>
<tr><th>Hits (account exists)</th><td class="n">${p.hits}</td></tr>
<tr><th>Misses (answered: no account)</th><td class="n">${misses.length}</td></tr>
${reasons.map(([reason, list]) => `<tr><th>Not told: ${escapeHtml(reason)}</th><td class="n">${list.length}</td></tr>`).join('\n')}
<tr><th>Coverage (answered ÷ checked)</th><td class="n">${Math.round(search.coverage * 1000) / 10}%</td></tr>
</tbody></table>
<p class="muted">A miss means the platform answered that no such account exists. A platform that was not reached or could not tell proves nothing either way, and is counted apart.</p>`;

  const hitRows = hits
    .map(
      (
        r,
      ) => `<tr><td><strong>${escapeHtml(r.platform)}</strong><br><span class="muted">${escapeHtml(r.category)}</span></td>
<td>${link(r.url)}</td><td>${profileBlock(r)}</td><td>${evidenceBlock(r)}</td></tr>`,
    )
    .join('\n');

  const graph = (search.links ?? [])
    .map(
      (l) =>
        `<li>${escapeHtml(names.get(l.from) ?? l.from)} → ${escapeHtml(names.get(l.to) ?? l.to)} <code>${escapeHtml(l.username)}</code>${l.username.toLowerCase() === search.username.toLowerCase() ? '' : ' <span class="muted">(another name)</span>'}<br>${link(l.url)}</li>`,
    )
    .join('\n');

  const followUpRows = (search.followUps ?? [])
    .map((f) => {
      const href = f.queryId ? extras.followUpHref?.(f.queryId) : undefined;
      const searched = f.queryId
        ? href
          ? `<a href="${escapeHtml(href)}">${escapeHtml(f.queryId)}</a>`
          : `<code>${escapeHtml(f.queryId)}</code>`
        : `<span class="muted">not searched: ${escapeHtml(f.notSearched ?? '')}</span>`;
      return `<tr><td><code>${escapeHtml(f.username)}</code></td><td>${escapeHtml(names.get(f.from) ?? f.from)}</td><td>${searched}</td></tr>`;
    })
    .join('\n');
  const followUps = search.followUpsPending
    ? '<h2>Follow-up searches</h2>\n<p class="muted">The follow-up searches of this recursive search are being started: make the report again to see them.</p>'
    : followUpRows
      ? `<h2>Follow-up searches (${search.followUps!.length})</h2>
<p class="muted">New names found in the hits’ profiles, each searched on its own (depth 1).</p>
<table><thead><tr><th>Name</th><th>Found in the hit on</th><th>Search</th></tr></thead><tbody>
${followUpRows}
</tbody></table>`
      : search.followUps
        ? '<h2>Follow-up searches (0)</h2>\n<p class="muted">No hit’s profile gave a new name.</p>'
        : '';

  const nonAnswers = reasons
    .map(
      ([reason, list]) => `<h3>${escapeHtml(reason)}: ${list.length}</h3>
<table><thead><tr><th>Platform</th><th>Profile URL</th><th>Why</th></tr></thead><tbody>
${list.map((r) => `<tr><td>${escapeHtml(r.platform)}</td><td>${link(r.url)}</td><td><code>${escapeHtml(r.evidence.rule)}</code></td></tr>`).join('\n')}
</tbody></table>`,
    )
    .join('\n');

  const health = (extras.health ?? [])
    .map(
      (h) =>
        `<tr><td>${escapeHtml(h.name)}</td><td>${escapeHtml(h.verdict)}</td><td>${escapeHtml(h.reason ?? '')}</td></tr>`,
    )
    .join('\n');

  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="muted">Search ${escapeHtml(search.queryId)} · status ${escapeHtml(search.status)} · started ${when(search.createdAt)} · finished ${when(search.completedAt)} · report made ${when(new Date(extras.generatedAt).toISOString())}${extras.generator ? ` by ${escapeHtml(extras.generator)}` : ''}</p>
${search.warning ? `<p class="warn">${escapeHtml(search.warning)}</p>` : ''}
<h2>Summary</h2>
${summary}
<h2>Hits (${hits.length})</h2>
${hits.length ? `<table><thead><tr><th>Platform</th><th>Profile</th><th>Details</th><th>Evidence</th></tr></thead><tbody>\n${hitRows}\n</tbody></table>` : '<p>No hit among the platforms that answered.</p>'}
<h2>Linked accounts</h2>
${graph ? `<ul>${graph}</ul>` : '<p class="muted">No hit’s profile links to another platform’s profile.</p>'}
${followUps}
<h2>Platforms that did not tell (${others.length})</h2>
${nonAnswers || '<p class="muted">Every platform checked answered.</p>'}
<h2>Platform health at the time</h2>
${health ? `<table><thead><tr><th>Platform</th><th>State</th><th>Why</th></tr></thead><tbody>${health}</tbody></table>` : '<p class="muted">No platform was known to be broken, blocked or drifting.</p>'}
</body></html>
`;
}
