/**
 * A platform as the engine sees it: validated, defaults filled in, regexes
 * compiled, frozen. Built only by `loader.ts`.
 */
import type { Category } from './categories.js';
import type { LinearRegex } from './linear-regex.js';
import type { ProfileField } from './profile-fields.js';
import type { UsernameRule } from './username-rule.js';

export type JsonPrimitive = string | number | boolean | null;

/** One fact about a response. */
export type BasicSignal =
  | { readonly kind: 'status'; readonly codes: readonly number[] }
  | { readonly kind: 'text'; readonly text: string }
  /**
   * The page names the account: a text holding `{username}`, filled with the name checked.
   * `text` as written; `parts` it split at the placeholder, once, at load time.
   */
  | { readonly kind: 'name'; readonly text: string; readonly parts: readonly string[] }
  | { readonly kind: 'regex'; readonly re: LinearRegex }
  | { readonly kind: 'redirect'; readonly target: string }
  | { readonly kind: 'json'; readonly path: readonly string[]; readonly equals?: JsonPrimitive }
  | { readonly kind: 'header'; readonly name: string; readonly value?: string };

/** A part of a compound signal: a fact, or a fact that must not hold. */
export type SignalPart = BasicSignal | { readonly kind: 'not'; readonly signal: BasicSignal };

/** A signal of a detect list: one fact, or a group that holds when all its parts hold. */
export type Signal = BasicSignal | { readonly kind: 'all'; readonly parts: readonly SignalPart[] };

export type SignalKind = Signal['kind'];

export type HttpMethod = 'GET' | 'HEAD' | 'POST';
export type BodyType = 'json' | 'form' | 'text';
export type RedirectPolicy = 'manual' | 'follow';

export interface CheckRequestSpec {
  readonly url: string;
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly bodyType: BodyType;
  readonly redirects: RedirectPolicy;
}

/**
 * A platform's own request-rate budget, per egress identity, in place of the
 * configured default (a strict API, say). Same shape as the engine's BudgetLimit.
 */
export interface PlatformBudget {
  readonly perSecond: number;
  readonly burst: number;
}

/**
 * How a platform's checks reach its site: `http` (Node's own client), `impersonate`
 * (a browser's TLS and HTTP/2 fingerprint), `browser` (headless Chromium running the
 * page's scripts). Ordered from the cheapest to the costliest.
 */
export const TRANSPORTS = ['http', 'impersonate', 'browser'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/**
 * Whether a platform's checks need an operator's session (a login's cookies or header):
 * `optional`, one is sent when configured; `required`, none is sent without one.
 */
export const SESSION_NEEDS = ['optional', 'required'] as const;
export type SessionNeed = (typeof SESSION_NEEDS)[number];

/** Where one profile field is read from in a hit's answer (`extract` in the catalogue). */
export type ExtractRule =
  | { readonly kind: 'json'; readonly path: readonly string[] }
  | { readonly kind: 'meta'; readonly name: string }
  | { readonly kind: 'regex'; readonly re: LinearRegex };

export interface ExtractRules {
  readonly fields: Readonly<Partial<Record<ProfileField, ExtractRule>>>;
  readonly ids: Readonly<Record<string, ExtractRule>>;
}

export interface Platform {
  /** Stable identifier derived from the name (lower-case, dashes). */
  readonly id: string;
  readonly name: string;
  readonly category: Category;
  readonly home: string;
  readonly profile: string;
  readonly check: CheckRequestSpec;
  readonly detect: { readonly exists: readonly Signal[]; readonly missing: readonly Signal[] };
  readonly username: UsernameRule;
  readonly known: { readonly claimed: readonly string[]; readonly unclaimed: readonly string[] };
  readonly tags: readonly string[];
  readonly nsfw: boolean;
  /** Searched only when a search names it or one of its tags. @default false */
  readonly onRequest: boolean;
  readonly enabled: boolean;
  readonly disabledReason: string | undefined;
  /**
   * Other hosts the same site answers at (an older name, a short domain, a sister site on
   * the same accounts): lower-case, never checked, never sent a request. Read by the
   * comparison with the public lists only. @default []
   */
  readonly otherHosts: readonly string[];
  /** Its own request-rate budget; undefined: the configured default. */
  readonly budget: PlatformBudget | undefined;
  /** How its checks reach the site. @default 'http' */
  readonly transport: Transport;
  /** Whether its checks need an operator's session. @default 'optional' */
  readonly session: SessionNeed;
  /** Its own profile-detail rules for hits; undefined: the generic extractors only. */
  readonly extract: ExtractRules | undefined;
}

export type ShieldReason = 'waf' | 'captcha';

export interface Shield {
  readonly name: string;
  readonly reason: ShieldReason;
  readonly status: readonly number[] | undefined;
  /** [lower-case header name, text the value contains ('' = present)] */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: readonly string[];
  /** A challenge its page's script passes unattended: a browser waits for the page to move on. */
  readonly passedByScript: boolean;
}

export interface Catalogue {
  readonly platforms: readonly Platform[];
  readonly shields: readonly Shield[];
}

/**
 * A hit-only platform (`detect.missing` empty) can confirm an account but never
 * says "not there": any answer that is not a hit reads unknown, never miss.
 */
export function isHitOnly(platform: Pick<Platform, 'detect'>): boolean {
  return platform.detect.missing.length === 0;
}

/**
 * The text a name signal looks for when `name` is checked (as its request carried it). The name
 * goes in as it is, not HTML-escaped: a search refuses `<`, `>` and quotes in a name
 * (username-rule.ts), and a page that escapes another character reads unknown, never a hit.
 */
export function namedText(signal: Extract<BasicSignal, { kind: 'name' }>, name: string): string {
  return signal.parts.join(name);
}

/** Whether any of the platform's signals names the account: its answers then differ by name. */
export function readsName(platform: Pick<Platform, 'detect'>): boolean {
  const names = (signal: Signal | SignalPart): boolean =>
    signal.kind === 'all'
      ? signal.parts.some(names)
      : signal.kind === 'not'
        ? names(signal.signal)
        : signal.kind === 'name';
  return [...platform.detect.exists, ...platform.detect.missing].some(names);
}

/** A short, stable description of a signal, used as evidence in outcomes. */
export function describeSignal(signal: Signal | SignalPart): string {
  switch (signal.kind) {
    case 'all':
      return `(${signal.parts.map(describeSignal).join(' & ')})`;
    case 'not':
      return `not ${describeSignal(signal.signal)}`;
    case 'status':
      return `status ${signal.codes.join('|')}`;
    case 'text':
    case 'name':
      return `text ${JSON.stringify(signal.text)}`;
    case 'regex':
      return `regex /${signal.re.source}/${signal.re.flags}`;
    case 'redirect':
      return signal.target === '' ? 'redirect' : `redirect ${JSON.stringify(signal.target)}`;
    case 'json':
      return 'equals' in signal
        ? `json ${signal.path.join('.')} = ${JSON.stringify(signal.equals)}`
        : `json ${signal.path.join('.')}`;
    case 'header':
      return signal.value === undefined
        ? `header ${signal.name}`
        : `header ${signal.name} ~ ${JSON.stringify(signal.value)}`;
  }
}

function slug(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * A platform's id: its name in lower-case Latin letters and digits joined by '-', or,
 * for a name with none (e.g. "Военное обозрение"), its home's host ("topwar-ru").
 */
export function platformId(name: string, home: string): string {
  const fromName = slug(name);
  if (fromName !== '') return fromName;
  let host = home;
  try {
    host = new URL(home).hostname.replace(/^www\./, '');
  } catch {
    // Not a URL: the text itself.
  }
  return slug(host);
}
