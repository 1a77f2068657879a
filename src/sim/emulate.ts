/**
 * Emulates catalogue platforms on the simulated web: each platform answers as
 * its own entry says, with accounts for a chosen set of names (by default its
 * known claimed accounts). Used by the catalogue tests, `npm run sim` and the
 * benchmark.
 */
import {
  type BasicSignal,
  type Platform,
  readsName,
  type Shield,
  type Signal,
} from '../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../catalogue/template.js';
import { platformUsername } from '../catalogue/username-rule.js';
import { Lru } from '../lru.js';
import { AnswerMemo } from './answer-memo.js';
import type { Behaviour, SimRequest, SimRoute } from './behaviour.js';
import { defenceOf, type SimDefence } from './defence.js';
import type { LimitAnswer } from './site-limits.js';
import { PROBE_NAME, type Synthesis, synthesizeExists, synthesizeMissing } from './synthesize.js';

export interface EmulationOptions {
  /** Names that have an account on a platform. @default its known claimed accounts */
  readonly accounts?: (platform: Platform) => Iterable<string>;
  /** Milliseconds before a platform answers. @default 0 */
  readonly latency?: (platform: Platform) => number;
  /** What a platform does instead of answering (hang, reset, WAF...), if anything. */
  readonly override?: (platform: Platform, username: string) => Behaviour | undefined;
  /** Filler bytes in HTML answers, for all platforms or per platform. @default 0 */
  readonly padBytes?: number | ((platform: Platform) => number);
  /**
   * The platform's rate limit per client address (requests a second, and at once),
   * e.g. `siteLimit` of site-limits.ts; undefined: none. Platforms sharing a host
   * share its strictest limit. @default none
   */
  readonly rateLimit?: (platform: Platform) => number | undefined;
  /** How a site's 429 tells of its limit (site-limits.ts). @default 'retry-after' */
  readonly limitAnswer?: LimitAnswer;
  /**
   * Body bytes of synthesized answers kept for the next request that gets the
   * same one (0: synthesize every answer). Enough for an answer of each kind
   * from each platform of the builtin catalogue, padded. @default 134217728 (128 MiB)
   */
  readonly answerCacheBytes?: number;
  /**
   * Landing pages of followed redirects kept to answer the request that follows
   * the redirect, the least recently redirected to let go first: a platform whose
   * redirect names the user leaves one a name. @default 4096
   */
  readonly landingsKept?: number;
  /**
   * How a platform's site defends itself against clients that are not browsers (defence.ts);
   * platforms sharing a host share the first one named. @default `defenceOf`: as the
   * transport its entry names says the live site does
   */
  readonly defence?: (platform: Platform) => SimDefence | undefined;
}

const ANSWER_CACHE_BYTES = 128 * 1024 * 1024;
const LANDINGS_KEPT = 4096;

export interface Emulation {
  readonly routes: readonly SimRoute[];
  /** Platforms the sim cannot emulate from their rules, and why. */
  readonly problems: readonly { readonly platform: string; readonly problem: string }[];
  /** Accounts per platform name: the ground truth. */
  readonly truth: () => Record<string, string[]>;
}

interface Matcher {
  readonly platform: Platform;
  /** Whether its answers are the same for every request to one origin (see `answerKey`). */
  readonly byOrigin: boolean;
  /** Whether its answers name the account: one answer per name, then. */
  readonly byName: boolean;
  readonly accounts: ReadonlySet<string>;
  /** Extracts the username from a request, or undefined when the request is not this platform's check. */
  readonly match: (req: SimRequest) => string | undefined;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function templateRegex(template: string, capture: string): RegExp {
  return new RegExp(`^${template.split(PLACEHOLDER).map(escapeRegex).join(capture)}$`);
}

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function matcherFor(
  platform: Platform,
  accounts: ReadonlySet<string>,
): { host: string | RegExp; matcher: Matcher } {
  const parts = splitAuthority(platform.check.url)!;
  const authority = parts.origin
    .replace(/^https?:\/\//i, '')
    .toLowerCase()
    .replace(/:\d+$/, '');
  const hostRe = authority.includes(PLACEHOLDER) ? templateRegex(authority, '([a-z0-9-]+)') : undefined;
  // A fragment is never sent: a check of a fixed address carries the name there only for the catalogue's sake.
  const rest = parts.rest.split('#')[0]!;
  const pathTemplate = rest === '' ? '/' : rest;
  const pathRe = templateRegex(pathTemplate, '([^/?#&]+)');
  const bodyRe =
    platform.check.body?.includes(PLACEHOLDER) === true
      ? templateRegex(platform.check.body, '(.+?)')
      : undefined;
  const match = (req: SimRequest): string | undefined => {
    if (req.method !== platform.check.method && !(platform.check.method === 'GET' && req.method === 'HEAD'))
      return undefined;
    let name: string | undefined;
    if (hostRe) {
      const m = hostRe.exec(req.host);
      if (!m) return undefined;
      name = m[1];
    }
    const p = pathRe.exec(req.path);
    if (!p) return undefined;
    if (p[1] !== undefined) name = decode(p[1]);
    if (bodyRe) {
      const b = bodyRe.exec(req.body);
      if (!b) return undefined;
      const raw = b[1] ?? '';
      name =
        platform.check.bodyType === 'json'
          ? safeJsonString(raw)
          : platform.check.bodyType === 'form'
            ? decode(raw)
            : raw;
    }
    return name;
  };
  return {
    host: hostRe ?? authority,
    matcher: {
      platform,
      accounts,
      byOrigin: answersByOrigin(platform),
      byName: readsName(platform),
      match,
    },
  };
}

/** `{username}.example.com`: the host template of a platform whose host holds the username. */
function siteOfTemplate(platform: Platform): string {
  return (splitAuthority(platform.check.url)?.origin ?? platform.check.url)
    .replace(/^https?:\/\//i, '')
    .toLowerCase()
    .replace(/:\d+$/, '');
}

/**
 * Whether a platform's synthesized answers depend on the request URL through its
 * origin alone: synthesis reads the origin (redirect targets, profile links) and
 * checks its answer against the URL, which a Location of the answer's own is
 * resolved against; the sim's own Locations are absolute, a catalogue's header
 * rule could set a relative one.
 */
function answersByOrigin(platform: Platform): boolean {
  const facts = (signal: Signal): BasicSignal[] =>
    signal.kind === 'all' ? signal.parts.map((part) => (part.kind === 'not' ? part.signal : part)) : [signal];
  return ![...platform.detect.exists, ...platform.detect.missing]
    .flatMap(facts)
    .some((fact) => fact.kind === 'header' && fact.name.toLowerCase() === 'location');
}

/** A synthesized answer with its bodies in bytes as sent, or why the sim cannot synthesize it. */
type Served =
  | {
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Uint8Array;
      /** For `redirects: follow`: the page the redirect lands on, by its URL. */
      readonly landing?: { readonly url: string; readonly status: number; readonly body: Uint8Array };
    }
  | { readonly problem: string };

function servedBytes(served: Served): number {
  return 'problem' in served
    ? served.problem.length
    : served.body.length + (served.landing?.body.length ?? 0);
}

function safeJsonString(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

export function emulateCatalogue(
  platforms: readonly Platform[],
  shields: readonly Shield[],
  options: EmulationOptions = {},
): Emulation {
  const problems: { platform: string; problem: string }[] = [];
  const byHost = new Map<string, Matcher[]>();
  const patterned: { host: RegExp; matchers: Matcher[] }[] = [];
  const landings = new Lru<string, { readonly status: number; readonly body: Uint8Array }>(
    options.landingsKept ?? LANDINGS_KEPT,
  );
  const truth: Record<string, string[]> = {};

  for (const platform of platforms) {
    const names = [...(options.accounts?.(platform) ?? platform.known.claimed)].map((n) =>
      platformUsername(platform, n),
    );
    const probeUrl = platform.check.url.split(PLACEHOLDER).join(PROBE_NAME);
    for (const [kind, synth] of [
      ['exists', synthesizeExists(platform, probeUrl, shields, 0, PROBE_NAME)],
      ['missing', synthesizeMissing(platform, probeUrl, shields, 0, PROBE_NAME)],
    ] as [string, Synthesis][]) {
      if (!synth.ok) problems.push({ platform: platform.name, problem: `${kind}: ${synth.problem}` });
    }
    truth[platform.name] = names;
    const { host, matcher } = matcherFor(platform, new Set(names));
    if (typeof host === 'string') {
      const list = byHost.get(host) ?? [];
      list.push(matcher);
      byHost.set(host, list);
    } else {
      patterned.push({ host, matchers: [matcher] });
    }
  }

  const memo = new AnswerMemo<Served>(options.answerCacheBytes ?? ANSWER_CACHE_BYTES, servedBytes);
  const indexOf = new Map<Matcher, number>();

  /**
   * What the request gets when the sim can answer it: a pure function of the
   * platform, whether the account exists, the padding, the request URL, which
   * synthesis reads through its origin alone for most platforms, so one answer
   * serves every name there, and the name, on a platform whose pages name the account.
   */
  const synthesized = (
    matcher: Matcher,
    username: string,
    exists: boolean,
    pad: number | undefined,
    url: string,
    req: SimRequest,
  ) => {
    const { platform } = matcher;
    const make = (): Served => {
      const synth = exists
        ? synthesizeExists(platform, url, shields, pad, username)
        : synthesizeMissing(platform, url, shields, pad, username);
      if (!synth.ok) return { problem: synth.problem };
      const a = synth.answer;
      return {
        status: a.status,
        headers: a.headers,
        body: Buffer.from(a.body, 'utf8'),
        ...(a.landing && {
          landing: {
            url: new URL(a.landing.path, url).href,
            status: a.landing.status,
            body: Buffer.from(a.landing.body, 'utf8'),
          },
        }),
      };
    };
    let index = indexOf.get(matcher);
    if (index === undefined) {
      index = indexOf.size;
      indexOf.set(matcher, index);
    }
    // With a path in origin form, the URL's origin is the text before it.
    const scope =
      matcher.byOrigin && req.path.startsWith('/') ? url.slice(0, url.length - req.path.length) : url;
    const named = matcher.byName ? `|${username}` : '';
    return memo.get(`${index}|${exists ? 1 : 0}|${pad}|${scope}${named}`, make);
  };

  const answer = (matcher: Matcher, username: string, req: SimRequest): Behaviour | undefined => {
    const { platform } = matcher;
    const special = options.override?.(platform, username);
    if (special) return special;
    const url = `${req.tls ? 'https' : 'http'}://${req.host}${req.path}`;
    const exists = matcher.accounts.has(username);
    const pad = typeof options.padBytes === 'function' ? options.padBytes(platform) : options.padBytes;
    const served = synthesized(matcher, username, exists, pad, url, req);
    if ('problem' in served)
      return {
        kind: 'respond',
        status: 500,
        body: `simulated web cannot emulate ${platform.name}: ${served.problem}`,
      };
    if (served.landing) landings.set(served.landing.url, served.landing);
    return {
      kind: 'respond',
      status: served.status,
      headers: served.headers,
      body: served.body,
      delayMs: options.latency?.(platform) ?? 0,
    };
  };

  const handle =
    (matchers: readonly Matcher[]) =>
    (req: SimRequest): Behaviour | undefined => {
      const landing = landings.get(`${req.tls ? 'https' : 'http'}://${req.host}${req.path}`);
      if (landing) return { kind: 'respond', status: landing.status, body: landing.body };
      for (const matcher of matchers) {
        const username = matcher.match(req);
        if (username !== undefined) return answer(matcher, username, req);
      }
      return undefined;
    };

  /** The strictest limit of a site's platforms, keyed by the site as its host (or host template) reads. */
  const limitOf = (site: string, matchers: readonly Matcher[]) => {
    const limits = matchers
      .map((m) => options.rateLimit?.(m.platform))
      .filter((n): n is number => n !== undefined);
    if (!limits.length) return {};
    const answer = options.limitAnswer;
    return { limit: { key: site, perSecond: Math.min(...limits), ...(answer ? { answer } : {}) } };
  };
  const defenceFor = options.defence ?? defenceOf;
  const defenceOfSite = (matchers: readonly Matcher[]) => {
    const defence = matchers.map((m) => defenceFor(m.platform)).find((d) => d !== undefined);
    return defence ? { defence } : {};
  };
  const routes: SimRoute[] = [
    ...[...byHost].map(([host, matchers]) => ({
      host,
      handle: handle(matchers),
      ...limitOf(host, matchers),
      ...defenceOfSite(matchers),
    })),
    ...patterned.map(({ host, matchers }) => ({
      host,
      handle: handle(matchers),
      ...limitOf(siteOfTemplate(matchers[0]!.platform), matchers),
      ...defenceOfSite(matchers),
    })),
    // Redirect targets on hosts no platform is checked on.
    {
      host: /.*/,
      handle: (req: SimRequest): Behaviour | undefined => {
        const landing = landings.get(`${req.tls ? 'https' : 'http'}://${req.host}${req.path}`);
        return landing ? { kind: 'respond', status: landing.status, body: landing.body } : undefined;
      },
    },
  ];
  return { routes, problems, truth: () => truth };
}
