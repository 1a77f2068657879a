/**
 * Emulates catalogue platforms on the simulated web: each platform answers as
 * its own entry says, with accounts for a chosen set of names (by default its
 * known claimed accounts). Used by the catalogue tests, `npm run sim` and the
 * benchmark.
 */
import type { Platform, Shield } from '../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../catalogue/template.js';
import { platformUsername } from '../catalogue/username-rule.js';
import type { Behaviour, SimRequest, SimRoute } from './behaviour.js';
import { type SimAnswer, type Synthesis, synthesizeExists, synthesizeMissing } from './synthesize.js';

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
}

export interface Emulation {
  readonly routes: readonly SimRoute[];
  /** Platforms the sim cannot emulate from their rules, and why. */
  readonly problems: readonly { readonly platform: string; readonly problem: string }[];
  /** Accounts per platform name: the ground truth. */
  readonly truth: () => Record<string, string[]>;
}

interface Matcher {
  readonly platform: Platform;
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
  return { host: hostRe ?? authority, matcher: { platform, accounts, match } };
}

/** `{username}.example.com`: the host template of a platform whose host holds the username. */
function siteOfTemplate(platform: Platform): string {
  return (splitAuthority(platform.check.url)?.origin ?? platform.check.url)
    .replace(/^https?:\/\//i, '')
    .toLowerCase()
    .replace(/:\d+$/, '');
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
  const landings = new Map<string, { status: number; body: string }>();
  const truth: Record<string, string[]> = {};

  for (const platform of platforms) {
    const names = [...(options.accounts?.(platform) ?? platform.known.claimed)].map((n) =>
      platformUsername(platform, n),
    );
    const probeUrl = platform.check.url.split(PLACEHOLDER).join('probe');
    for (const [kind, synth] of [
      ['exists', synthesizeExists(platform, probeUrl, shields)],
      ['missing', synthesizeMissing(platform, probeUrl, shields)],
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

  const answer = (matcher: Matcher, username: string, req: SimRequest): Behaviour | undefined => {
    const { platform } = matcher;
    const special = options.override?.(platform, username);
    if (special) return special;
    const url = `${req.tls ? 'https' : 'http'}://${req.host}${req.path}`;
    const exists = matcher.accounts.has(username);
    const pad = typeof options.padBytes === 'function' ? options.padBytes(platform) : options.padBytes;
    const synth = exists
      ? synthesizeExists(platform, url, shields, pad)
      : synthesizeMissing(platform, url, shields, pad);
    if (!synth.ok)
      return {
        kind: 'respond',
        status: 500,
        body: `simulated web cannot emulate ${platform.name}: ${synth.problem}`,
      };
    const a: SimAnswer = synth.answer;
    if (a.landing)
      landings.set(new URL(a.landing.path, url).href, { status: a.landing.status, body: a.landing.body });
    return {
      kind: 'respond',
      status: a.status,
      headers: a.headers,
      body: a.body,
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
    return limits.length ? { limit: { key: site, perSecond: Math.min(...limits) } } : {};
  };
  const routes: SimRoute[] = [
    ...[...byHost].map(([host, matchers]) => ({
      host,
      handle: handle(matchers),
      ...limitOf(host, matchers),
    })),
    ...patterned.map(({ host, matchers }) => ({
      host,
      handle: handle(matchers),
      ...limitOf(siteOfTemplate(matchers[0]!.platform), matchers),
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
