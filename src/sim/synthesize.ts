/**
 * Builds, from a platform's own detection rules, an answer in which its account
 * exists (every exists signal holds, no missing signal does) or is missing (a
 * missing signal holds), for one name: a page that names the account names it. Pure;
 * each answer is checked with the real classifier before it is used, so the simulated
 * web never contradicts the catalogue.
 */
import RandExp from 'randexp';
import type { LinearRegex } from '../catalogue/linear-regex.js';
import {
  isHitOnly,
  namedText,
  type Platform,
  type Shield,
  type Signal,
  type SignalPart,
} from '../catalogue/platform.js';
import { classify } from '../engine/verdict/classify.js';
import type { ResponseView } from '../engine/verdict/response-view.js';
import { profileSample } from './profile-sample.js';

export interface SimAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** For `redirects: follow`: the first answer redirects here, and the landing page answers this. */
  readonly landing?: { readonly path: string; readonly status: number; readonly body: string };
}

export type Synthesis =
  | { readonly ok: true; readonly answer: SimAnswer }
  | { readonly ok: false; readonly problem: string };

/** The name a synthesized answer is for when none is given (the sim's probe of an entry). */
export const PROBE_NAME = 'probe';

const FILLER = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n';

function padding(bytes: number): string {
  return bytes > 0 ? FILLER.repeat(Math.ceil(bytes / FILLER.length)) : '';
}

/** A text `re` matches; RandExp reads JavaScript syntax, which the catalogue's RE2 patterns are written in too. */
function sampleRegex(re: LinearRegex): string {
  const gen = new RandExp(new RegExp(re.source, re.flags));
  gen.max = 3;
  gen.randInt = (min: number) => min;
  return gen.gen();
}

function setJson(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = target;
  path.forEach((segment, i) => {
    const last = i === path.length - 1;
    const index = Number(segment);
    const key: string | number = Array.isArray(node) && Number.isInteger(index) ? index : segment;
    if (last) {
      (node as Record<string | number, unknown>)[key] = value;
      return;
    }
    const nextIsIndex = Number.isInteger(Number(path[i + 1]));
    let child = (node as Record<string | number, unknown>)[key];
    if (child === null || typeof child !== 'object') {
      child = nextIsIndex ? [] : {};
      (node as Record<string | number, unknown>)[key] = child;
    }
    node = child as Record<string, unknown>;
  });
}

/** Text markers inside a JSON body: `"key":`, `"key":value` become real members; other text a string member. */
function addTextToJson(json: Record<string, unknown>, text: string): void {
  const member = /^\s*"([^"]+)"\s*:\s*(.*?)\s*,?\s*$/.exec(text);
  if (member) {
    const [, key, raw] = member;
    if (raw === '' || raw === undefined) {
      json[key!] ??= 1;
      return;
    }
    try {
      json[key!] = JSON.parse(raw);
      return;
    } catch {
      // fall through
    }
  }
  json[`_t${Object.keys(json).length}`] = text;
}

interface Draft {
  status: number | undefined;
  headers: Record<string, string>;
  texts: string[];
  json: Record<string, unknown> | undefined;
  redirect: string | undefined;
  /** `<meta>` tags of an HTML page: [name, content]. */
  meta: [string, string][];
}

function apply(draft: Draft, signal: Signal | SignalPart, mode: 'hold' | 'exists', name: string): void {
  switch (signal.kind) {
    case 'all':
      for (const part of signal.parts) apply(draft, part, mode, name);
      return;
    case 'not':
      // Nothing to add: the answer lacks what is not put in (the classifier checks it after).
      return;
    case 'status':
      draft.status ??= signal.codes[0];
      return;
    case 'text':
      draft.texts.push(signal.text);
      return;
    case 'name':
      draft.texts.push(namedText(signal, name));
      return;
    case 'regex':
      draft.texts.push(sampleRegex(signal.re));
      return;
    case 'redirect':
      draft.redirect = signal.target;
      return;
    case 'header':
      draft.headers[signal.name] = signal.value ?? 'present';
      return;
    case 'json':
      draft.json ??= {};
      setJson(
        draft.json,
        signal.path,
        'equals' in signal ? signal.equals : mode === 'exists' ? 'present' : 1,
      );
      return;
  }
}

function render(
  platform: Platform,
  draft: Draft,
  requestUrl: string,
  padBytes: number,
  titled = true,
): SimAnswer {
  const headers: Record<string, string> = { ...draft.headers };
  let body: string;
  if (draft.json) {
    for (const t of draft.texts) {
      if (!JSON.stringify(draft.json).includes(t)) addTextToJson(draft.json, t);
    }
    body = JSON.stringify(draft.json);
    headers['content-type'] = 'application/json';
  } else {
    const metas = draft.meta
      .map(
        ([name, content]) =>
          `<meta ${name.includes(':') ? 'property' : 'name'}="${attr(name)}" content="${attr(content)}">`,
      )
      .join('');
    const title = titled ? `<title>${platform.name}</title>` : '';
    const head = title || metas ? `<head>${title}${metas}</head>` : '';
    body = `<!DOCTYPE html><html>${head}<body>${padding(padBytes)}${draft.texts.map((t) => `<div>${t}</div>`).join('')}</body></html>`;
  }
  if (draft.redirect !== undefined) {
    const target = draft.redirect;
    const base = new URL(requestUrl);
    const location = /^https?:\/\//i.test(target)
      ? target
      : `${base.origin}${target.startsWith('/') ? target : `/${target}`}${target.includes('?') ? '&' : '?'}sim=1`;
    if (platform.check.redirects === 'follow') {
      return {
        status: 302,
        headers: { location },
        body: '',
        landing: { path: location, status: draft.status ?? 200, body },
      };
    }
    return { status: 302, headers: { ...headers, location }, body: '' };
  }
  return { status: draft.status ?? 200, headers, body };
}

function viewOf(answer: SimAnswer, requestUrl: string): ResponseView {
  if (answer.landing) {
    return {
      status: answer.landing.status,
      headers: {},
      url: new URL(answer.landing.path, requestUrl).href,
      redirected: true,
      body: answer.landing.body,
      complete: true,
    };
  }
  return {
    status: answer.status,
    headers: answer.headers,
    url: requestUrl,
    redirected: false,
    body: answer.body,
    complete: true,
  };
}

const emptyDraft = (): Draft => ({
  status: undefined,
  headers: {},
  texts: [],
  json: undefined,
  redirect: undefined,
  meta: [],
});

function attr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function hasJson(json: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = json;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return false;
    node = (node as Record<string, unknown>)[segment];
  }
  return node !== undefined;
}

/**
 * The draft with the platform's profile details added where its `extract`
 * rules read them (undefined without rules). A member the detection rules
 * already set keeps their value.
 */
function withProfile(platform: Platform, draft: Draft, requestUrl: string): Draft | undefined {
  const sample = profileSample(platform, requestUrl);
  if (!sample) return undefined;
  const json = sample.json.length > 0 || draft.json ? structuredClone(draft.json ?? {}) : undefined;
  for (const [path, value] of sample.json) if (json && !hasJson(json, path)) setJson(json, path, value);
  return {
    ...draft,
    headers: { ...draft.headers },
    json,
    texts: [...draft.texts, ...(json ? [] : sample.texts)],
    meta: json ? [] : sample.meta.map(([name, content]): [string, string] => [name, content]),
  };
}

/** An answer saying `name`'s account exists. */
export function synthesizeExists(
  platform: Platform,
  requestUrl: string,
  shields: readonly Shield[],
  padBytes = 0,
  name = PROBE_NAME,
): Synthesis {
  const draft = emptyDraft();
  for (const signal of platform.detect.exists) apply(draft, signal, 'exists', name);
  let verdict: ReturnType<typeof classify> = 'pending';
  // With the profile details the platform's rules read, when the answer still says exists; else without.
  const drafts = [withProfile(platform, draft, requestUrl), draft].filter((d): d is Draft => d !== undefined);
  for (const candidate of drafts) {
    // A site whose missing page is told by its bare title (`<title>Name</title>`) gets a profile without one.
    for (const titled of [true, false]) {
      const answer = render(platform, structuredClone(candidate), requestUrl, padBytes, titled);
      verdict = classify(platform, viewOf(answer, requestUrl), shields, name);
      if (verdict !== 'pending' && verdict.status === 'hit') return { ok: true, answer };
    }
  }
  return {
    ok: false,
    problem: `no answer can satisfy every exists signal without a missing one (got ${verdict === 'pending' ? 'pending' : `${verdict.status}: ${verdict.rule}`})`,
  };
}

/** The status the platform's exists rules expect of a page, or 200. */
function siteStatus(platform: Platform): number {
  const statusSignal = platform.detect.exists.find((s) => s.kind === 'status');
  return statusSignal?.kind === 'status' ? statusSignal.codes[0]! : 200;
}

/**
 * An answer saying `name`'s account is missing: the first missing signal that can be made to
 * hold alone. A hit-only platform has none: its page for a name nobody holds is one with
 * none of the exists markers, which it reads as unknown/no_miss_rule.
 */
export function synthesizeMissing(
  platform: Platform,
  requestUrl: string,
  shields: readonly Shield[],
  padBytes = 0,
  name = PROBE_NAME,
): Synthesis {
  if (isHitOnly(platform)) return synthesizeNotAHit(platform, requestUrl, shields, padBytes, name);
  const tried: string[] = [];
  for (const signal of platform.detect.missing) {
    const draft = emptyDraft();
    apply(draft, signal, 'hold', name);
    // Keep the page looking like the site's: the status the exists rules expect, unless the signal sets one.
    if (draft.status === undefined && signal.kind !== 'redirect') draft.status = siteStatus(platform);
    const answer = render(platform, draft, requestUrl, padBytes);
    const verdict = classify(platform, viewOf(answer, requestUrl), shields, name);
    if (verdict !== 'pending' && verdict.status === 'miss') return { ok: true, answer };
    tried.push(verdict === 'pending' ? 'pending' : verdict.rule);
  }
  return { ok: false, problem: `no missing signal can be made to hold (${tried.join('; ')})` };
}

/** A hit-only platform's page for a name nobody holds: the status its exists rules expect, and nothing else. */
function synthesizeNotAHit(
  platform: Platform,
  requestUrl: string,
  shields: readonly Shield[],
  padBytes: number,
  name: string,
): Synthesis {
  const draft = emptyDraft();
  draft.status = siteStatus(platform);
  const answer = render(platform, draft, requestUrl, padBytes);
  const verdict = classify(platform, viewOf(answer, requestUrl), shields, name);
  if (verdict !== 'pending' && verdict.status === 'unknown' && verdict.reason === 'no_miss_rule')
    return { ok: true, answer };
  return {
    ok: false,
    problem: `a page without the exists markers does not read unknown/no_miss_rule (got ${verdict === 'pending' ? 'pending' : `${verdict.status}: ${verdict.rule}`})`,
  };
}
