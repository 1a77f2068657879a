/**
 * What the browser transport's failure, cap and tab tests share: a simulated web whose
 * pages answer at once, late or never, pages that leave state behind or navigate where
 * nothing commits, a challenged site,
 * the catalogue naming them, and engines over Debian's Chromium that the suite closes.
 * Each test file sets up its own, so the files run side by side, each with its browser.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Catalogue } from '../../src/catalogue/platform.js';
import type { Engine } from '../../src/engine/engine.js';
import type { BrowserDirectory } from '../../src/engine/transport/browser-directory.js';
import { TransportTally } from '../../src/engine/transport/transport-tally.js';
import type { Behaviour, SimRequest } from '../../src/sim/behaviour.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry, platformNamed } from '../support/catalogue.js';
import { engineFor } from '../support/engine.js';

export { hasBrowser } from '../support/browser-guard.js';

/** Chromium processes this process started (the browsers, not their helpers, which are theirs). */
export function browserPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, comm]) => pid && comm && /chrom/.test(comm))
    .map(([pid]) => Number(pid));
}

/**
 * The memory (bytes) the given browsers and every process under them hold, each shared page
 * counted in part (the proportional set size), so a renderer's share of the browser's is not
 * counted again.
 */
export function browserMemory(browsers: readonly number[]): number {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent pid is the fourth field, after the command in parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const tree = new Set(browsers);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents)
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
  }
  let bytes = 0;
  for (const pid of tree) {
    try {
      const kb = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
      bytes += Number(kb ?? 0) * 1024;
    } catch {
      // Gone since it was listed.
    }
  }
  return bytes;
}

/** `alice` exists; `/u/slow-*` answers after two seconds, `/u/slower-*` after four, `/u/hang-*` never. */
function handle(req: SimRequest) {
  const name = /^\/u\/([^/?]+)/.exec(req.path)?.[1];
  if (name === undefined) return undefined;
  if (name.startsWith('hang-')) return { kind: 'hang' as const };
  const delayMs = name.startsWith('slow-') ? 2_000 : name.startsWith('slower-') ? 4_000 : 0;
  return name === 'alice' || name === 'slow-alice' || name === 'slower-alice'
    ? { kind: 'respond' as const, status: 200, body: `<html><h1>${name}</h1></html>`, delayMs }
    : { kind: 'respond' as const, status: 404, body: '<html><title>Not found</title></html>', delayMs };
}

const HOSTS = ['plain.test', 'other.test'] as const;
/** A page that says whether it found what its script leaves behind: a cookie, local or session storage. */
export const STICKY = 'sticky.test';
const STICKY_PAGE = `<html><body><div id="v">first visit</div><script>
var seen = document.cookie.indexOf('seen=1') >= 0 || localStorage.getItem('seen') || sessionStorage.getItem('seen');
if (seen) document.getElementById('v').textContent = 'return' + 'ing visitor';
document.cookie = 'seen=1; path=/; max-age=3600'; localStorage.setItem('seen', '1'); sessionStorage.setItem('seen', '1');
</script></body></html>`;
/** The same, but what it leaves is written late: on a timer, as the page is left, and (for dave) by a popup it opens. */
export const STICKY_LATE = 'sticky-late.test';
const STICKY_LATE_PAGE = STICKY_PAGE.replace(
  '</script>',
  `function leave() { document.cookie = 'seen=1; path=/; max-age=3600'; localStorage.setItem('seen', '1'); sessionStorage.setItem('seen', '1'); }
setInterval(leave, 5); addEventListener('pagehide', leave); if (!window.opener && location.pathname.endsWith('/dave')) window.open('/popup');
</script>`,
);
/**
 * A page that reads as found when it meets a cookie, and asks (keepalive, so the request
 * outlives the page) for an answer that sets that cookie 1.5 s later: after its check and
 * the tab's wipe have ended.
 */
export const LATE_COOKIE = 'late-cookie.test';
const LATE_COOKIE_PAGE = `<html><body><div id="v">first visit</div><script>
if (document.cookie.indexOf('seen=1') >= 0) document.getElementById('v').textContent = 'return' + 'ing visitor';
fetch('/late', { keepalive: true });
</script></body></html>`;
function lateCookie(req: SimRequest): Behaviour {
  if (req.path === '/late')
    return {
      kind: 'respond',
      status: 204,
      body: '',
      headers: { 'set-cookie': 'seen=1; Path=/; Max-Age=3600' },
      delayMs: 1_500,
    };
  return { kind: 'respond', status: 200, body: LATE_COOKIE_PAGE };
}
/**
 * Pages that, once loaded, navigate to `away`, which answers `there`; `alice` exists, any
 * other name reads 404.
 */
function navigatingAway(away: string, there: Behaviour) {
  return (req: SimRequest): Behaviour | undefined => {
    if (req.path === away) return there;
    const name = /^\/u\/([^/?]+)/.exec(req.path)?.[1];
    if (name === undefined) return undefined;
    const body = `<html><body><h1>${name}</h1><script>addEventListener('load', function () { location.href = '${away}'; });</script></body></html>`;
    return { kind: 'respond', status: name === 'alice' ? 200 : 404, body };
  };
}
/** A page that, once loaded, navigates to an address that never answers. */
export const STALLED = 'stalled.test';
const stalled = navigatingAway('/never', { kind: 'hang' });
/** A page that, once loaded, navigates to an address answering 204 No Content a second later: a navigation that never commits. */
export const NO_COMMIT = 'no-commit.test';
const noCommit = navigatingAway('/nothing', { kind: 'respond', status: 204, body: '', delayMs: 1_000 });
/**
 * A challenge whose script works a moment after the page's load before it sets its cookie
 * and reloads, as one that computes does; the reload is answered as the plain sites answer.
 */
export const LATE_RELOAD = 'late-reload.test';
/** A script that, `ms` after it runs, sets the cookie `{cookie}=1` and reloads the page. */
const reloadAfter = (cookie: string, ms: number) =>
  `setTimeout(function () { document.cookie = '${cookie}=1; path=/'; location.reload(); }, ${ms});`;
/** The request carries the cookie `{cookie}=1`, which a challenge's script sets. */
const carries = (req: SimRequest, cookie: string) =>
  new RegExp(`(?:^|;\\s*)${cookie}=1`).test(String(req.headers.cookie ?? ''));
const LATE_RELOAD_PAGE = `<html><head><title>Just a moment...</title></head><body><script>
addEventListener('load', function () { ${reloadAfter('passed', 20)} });
</script></body></html>`;
function lateReload(req: SimRequest) {
  if (carries(req, 'passed')) return handle(req);
  return { kind: 'respond' as const, status: 403, body: LATE_RELOAD_PAGE };
}
/** The same challenge, its answer a second's wait and a redirect to the page (`/go/{name}` → `/u/{name}`). */
export const LATE_REDIRECT = 'late-redirect.test';
function lateRedirect(req: SimRequest) {
  const go = /^\/go\/([^/?]+)/.exec(req.path)?.[1];
  if (go !== undefined)
    return {
      kind: 'respond' as const,
      status: 302,
      headers: { location: `/u/${go}` },
      body: '',
      delayMs: 1_000,
    };
  if (carries(req, 'passed')) return handle(req);
  return {
    kind: 'respond' as const,
    status: 403,
    body: LATE_RELOAD_PAGE.replace(
      'location.reload();',
      "location.href = location.pathname.replace('/u/', '/go/');",
    ),
  };
}
/** A challenge page marked as live ones are (`cf-mitigated: challenge`), running `script`. */
function markedChallenge(script: string): Behaviour {
  return {
    kind: 'respond',
    status: 403,
    headers: { 'cf-mitigated': 'challenge', 'content-type': 'text/html' },
    body: `<html><head><title>Just a moment...</title></head><body><script>${script}</script></body></html>`,
  };
}
/**
 * A marked challenge whose script works `workMs` after the page's load before it sets its
 * cookie and reloads, far longer than a page takes to settle; past it, the site answers as the
 * plain sites do. `workMs` absent: its script never passes.
 */
function workingChallenge(workMs?: number) {
  const pass = workMs === undefined ? '' : reloadAfter('worked', workMs);
  return (req: SimRequest): Behaviour | undefined =>
    carries(req, 'worked')
      ? handle(req)
      : markedChallenge(`addEventListener('load', function () { ${pass} });`);
}
/** A challenge whose script works a second and a half before it reloads. */
export const WORKING = 'working.test';
/** A challenge whose script never gets past it. */
export const STUCK = 'stuck.test';
/**
 * A marked challenge whose script reloads the page `{ms}` after it runs, the time named in the
 * name asked (`/u/r{ms}`): about when a page that settled is read. Past it, every name exists.
 */
export const RACING = 'racing.test';
function racing(req: SimRequest): Behaviour | undefined {
  const ms = /^\/u\/r(\d+)$/.exec(req.path)?.[1];
  if (ms === undefined) return undefined;
  if (carries(req, 'passed')) return { kind: 'respond', status: 200, body: `<html><h1>r${ms}</h1></html>` };
  return markedChallenge(reloadAfter('passed', Number(ms)));
}
/** A site behind a JavaScript challenge: only the browser gets past it. */
export const CHALLENGED = 'challenged.test';

export type EngineOverrides = Parameters<typeof engineFor>[2];

/** A platform on `host` whose entry names the browser; its profiles at /u/{username}. */
function browserEntry(host: string, detect?: NonNullable<Parameters<typeof entry>[1]>['detect']) {
  return entry(host, {
    home: `https://${host}/`,
    profile: `https://${host}/u/{username}`,
    transport: 'browser',
    ...(detect ? { detect } : {}),
  });
}

/** Call inside a describe: starts the simulated web before its tests and closes every engine after. */
export function browserFixture() {
  const sim = new SimWeb({
    routes: [
      ...HOSTS.map((host) => ({ host, handle })),
      { host: CHALLENGED, defence: 'challenge' as const, handle },
      { host: NO_COMMIT, handle: noCommit },
      { host: LATE_RELOAD, handle: lateReload },
      { host: LATE_REDIRECT, handle: lateRedirect },
      { host: STALLED, handle: stalled },
      { host: WORKING, handle: workingChallenge(1_500) },
      { host: STUCK, handle: workingChallenge() },
      { host: RACING, handle: racing },
      { host: STICKY, handle: () => ({ kind: 'respond' as const, status: 200, body: STICKY_PAGE }) },
      {
        host: STICKY_LATE,
        handle: () => ({ kind: 'respond' as const, status: 200, body: STICKY_LATE_PAGE }),
      },
      { host: LATE_COOKIE, handle: lateCookie },
    ],
  });
  let catalogue: Catalogue;
  const engines: Engine[] = [];
  const platform = (host: string) => platformNamed(catalogue, host);
  /** An engine with a tally of its own (or the one given), its browser checks accepting the sim's certificates. */
  const engine = (
    overrides: EngineOverrides = {},
    tally = new TransportTally(),
    browserDirectory?: BrowserDirectory,
  ) => {
    const made = engineFor(
      sim,
      catalogue,
      { insecureTls: true, timeoutMs: 20_000, browserChecksPerSiteMinute: 1_000, ...overrides },
      { tally, ...(browserDirectory ? { browserDirectory } : {}) },
    );
    engines.push(made);
    return { engine: made, tally };
  };

  beforeAll(async () => {
    await sim.start();
    const sticky = { exists: [{ text: 'returning visitor' }], missing: [{ text: 'first visit' }] };
    catalogue = catalogueOf([
      ...[...HOSTS, LATE_RELOAD, LATE_REDIRECT, NO_COMMIT, STALLED, WORKING, STUCK, RACING].map((host) =>
        browserEntry(host),
      ),
      // Read as found only when a check meets what an earlier one left behind.
      browserEntry(STICKY, sticky),
      browserEntry(STICKY_LATE, sticky),
      browserEntry(LATE_COOKIE, sticky),
      // Named for http: it reaches the browser only by escalation.
      entry(CHALLENGED, { home: `https://${CHALLENGED}/`, profile: `https://${CHALLENGED}/u/{username}` }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await sim.stop();
  });
  return { sim, platform, engine };
}
