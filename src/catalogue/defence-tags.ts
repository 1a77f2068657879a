/**
 * What other site lists say of the shield in front of a site: WhatsMyName's and
 * Maigret's `protection` tags. A tag naming a check of the client's handshake calls
 * for a browser's handshake (`impersonate`); one naming a JavaScript challenge calls
 * for a browser (`browser`, or `impersonate` where a browser cannot hand back what the
 * check reads); the others name no transport that helps. One home for that mapping:
 * the importers set an entry's `transport` from it, as the catalogue's entries were. Pure.
 */
import type { ReferenceSource } from './counterparts.js';
import type { Transport } from './platform.js';
import type { CheckSpec, SignalSpec } from './schema.js';

/** `handshake`: refuses a client whose TLS handshake is not a browser's; `challenge`: answers a script only a browser runs; `none`: no transport gets past it. */
export type DefenceKind = 'handshake' | 'challenge' | 'none';

/** The lists that tag their sites' defences. */
export type TaggingSource = Exclude<ReferenceSource, 'sherlock'>;

/**
 * Every tag the lists use, and what it says. `none`: an address's reputation (egress
 * identities answer that), a login (a session), a captcha (a person), a user agent
 * (a header), or a shield the list does not name.
 */
export const DEFENCE_TAGS: Readonly<Record<TaggingSource, Readonly<Record<string, DefenceKind>>>> = {
  whatsmyname: {
    cloudflare: 'handshake',
    cloudfront: 'handshake',
    'ddos-guard': 'challenge',
    anubis: 'challenge',
    captcha: 'none',
    'user-agent': 'none',
    multiple: 'none',
    other: 'none',
  },
  maigret: {
    tls_fingerprint: 'handshake',
    cf_firewall: 'handshake',
    cf_js_challenge: 'challenge',
    js_challenge: 'challenge',
    aws_waf_js_challenge: 'challenge',
    ddos_guard_challenge: 'challenge',
    ip_reputation: 'none',
    custom_bot_protection: 'none',
    login: 'none',
  },
};

/** What one tag of `source` says; undefined for a tag not listed in DEFENCE_TAGS. */
export function defenceKind(source: TaggingSource, tag: string): DefenceKind | undefined {
  return Object.hasOwn(DEFENCE_TAGS[source], tag) ? DEFENCE_TAGS[source][tag] : undefined;
}

/**
 * The transport a site's tags call for: `browser` for a challenge, `impersonate` for a
 * handshake check, `http` when they name neither.
 */
export function transportCalledFor(kinds: Iterable<DefenceKind | undefined>): Transport {
  let called: Transport = 'http';
  for (const kind of kinds) {
    if (kind === 'challenge') return 'browser';
    if (kind === 'handshake') called = 'impersonate';
  }
  return called;
}

/** What a check reads (the importers' entry): its request and its detect rules. */
export interface CheckRead {
  readonly check?: CheckSpec | undefined;
  readonly detect: { readonly exists: readonly SignalSpec[]; readonly missing: readonly SignalSpec[] };
}

/**
 * Why a browser cannot hand back what a check reads, or undefined when it can: a challenge's
 * reload sends a GET, Chromium shows JSON as a page, and it follows every redirect.
 */
export function browserCannotRead({ check, detect }: CheckRead): string | undefined {
  const method = check?.method ?? 'GET';
  if (method !== 'GET') return `this check is a ${method}, which the challenge's reload does not send again`;
  const facts = [...detect.exists, ...detect.missing].flatMap((signal) =>
    'all' in signal ? signal.all.map((part) => ('not' in part ? part.not : part)) : [signal],
  );
  if (facts.some((fact) => 'json' in fact))
    return 'this check reads JSON, which a browser hands back as a page';
  const readsRedirect = facts.some(
    (fact) =>
      'redirect' in fact || ('status' in fact && fact.status.some((code) => code >= 300 && code < 400)),
  );
  if (readsRedirect && check?.redirects !== 'follow')
    return 'this check reads a redirect, which a browser follows';
  return undefined;
}

const LIST_NAMES: Readonly<Record<TaggingSource, string>> = {
  whatsmyname: 'WhatsMyName',
  maigret: 'Maigret',
};

/**
 * The transport past the defences `tags` (of `source`) name, for the check an importer made,
 * and a note saying why when it is not `http`: `browser` for a challenge, unless the browser
 * cannot read the check (then `impersonate`, a browser's handshake, as far as it can go);
 * `impersonate` for a handshake check.
 */
export function transportForTags(
  source: TaggingSource,
  tags: readonly string[],
  read: CheckRead,
): { readonly transport: Transport; readonly note?: string } {
  const called = transportCalledFor(tags.map((tag) => defenceKind(source, tag)));
  const named = tags
    .filter((tag) => {
      const kind = defenceKind(source, tag);
      return kind === 'handshake' || kind === 'challenge';
    })
    .join(', ');
  const tagged = `${LIST_NAMES[source]} tags it ${named}`;
  if (called === 'impersonate')
    return {
      transport: called,
      note: `Goes by impersonate: ${tagged}, a shield that refuses a handshake that is not a browser's.`,
    };
  if (called !== 'browser') return { transport: called };
  const unreadable = browserCannotRead(read);
  return unreadable
    ? {
        transport: 'impersonate',
        note: `Goes by impersonate, not browser: ${tagged}, a JavaScript challenge, but ${unreadable}; a browser's handshake is as far as it can go.`,
      }
    : {
        transport: 'browser',
        note: `Goes by browser: ${tagged}, a JavaScript challenge that only a client running the page passes.`,
      };
}

/** The `protection` tags of a parsed list, by entry name (trimmed, as the importers keep it). */
export function protectionTags(source: TaggingSource, doc: unknown): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  const add = (name: unknown, site: unknown) => {
    const tags = (site as { protection?: unknown } | null)?.protection;
    if (typeof name !== 'string' || !Array.isArray(tags)) return;
    const strings = tags.filter((t): t is string => typeof t === 'string');
    if (strings.length) out.set(name.trim(), strings);
  };
  const sites = (doc as { sites?: unknown } | null)?.sites;
  if (source === 'whatsmyname' && Array.isArray(sites))
    for (const site of sites) add((site as { name?: unknown } | null)?.name, site);
  if (source === 'maigret' && sites !== null && typeof sites === 'object' && !Array.isArray(sites))
    for (const [name, site] of Object.entries(sites)) add(name, site);
  return out;
}
