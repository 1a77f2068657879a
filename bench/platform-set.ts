/**
 * The platform sets the benchmark searches (the built-in catalogue and seeded
 * synthetic sets), how the simulated web emulates them under a latency
 * profile, and the physical limit of a search over them. Everything here is a
 * pure function of (set, profile, seed), so the simulated web, the engine and
 * the orchestrator, each in its own process, agree on it.
 */
import { loadBuiltinCatalogue, readShieldsDocument } from '../src/catalogue/builtin.js';
import { loadCatalogue } from '../src/catalogue/loader.js';
import type { Catalogue, Platform, Transport } from '../src/catalogue/platform.js';
import { selectPlatforms } from '../src/catalogue/select.js';
import { PLACEHOLDER } from '../src/catalogue/template.js';
import { originLoads } from '../src/schedule/politeness-bound.js';
import type { BudgetLimit } from '../src/schedule/rate-budget.js';
import type { SimRoute } from '../src/sim/behaviour.js';
import { defenceOf, type SimDefence } from '../src/sim/defence.js';
import { emulateCatalogue } from '../src/sim/emulate.js';
import { type Latency, type LatencyProfile, platformLatency } from '../src/sim/latency.js';
import { hashSeed, seededRandom } from '../src/sim/random.js';
import { type LimitAnswer, siteLimit } from '../src/sim/site-limits.js';
import { syntheticPlatforms } from '../src/sim/synthetic.js';

/**
 * Which platforms of a `defended-` or `escalating-` set defend themselves: `both`, a seeded
 * DEFENDED_SHARE of them, the first half by handshake, the rest by challenge; `handshake`
 * or `challenge`, that half alone; `none`, none; `challenge-only`, the challenge half with
 * nothing else searched (what a browser check costs when nothing else competes for the CPU).
 */
export type DefendedMix = 'none' | 'handshake' | 'challenge' | 'both' | 'challenge-only';

/**
 * `builtin`; `synthetic-N`: N generated platforms that answer as their rules say;
 * `defended-MIX`: the built-in catalogue with every transport `http` but those MIX defends,
 * named as their defence needs (`impersonate` for a handshake, `browser` for a challenge), so
 * their checks start there; `escalating-MIX`: the same platforms defended the same way, but
 * every transport `http`, as for sites not known to defend themselves: their checks start by
 * http, meet the defence and escalate.
 */
export type PlatformSetId =
  | 'builtin'
  | `synthetic-${number}`
  | `defended-${DefendedMix}`
  | `escalating-${DefendedMix}`;

/** The share of a default search's platforms a `defended-both` set defends. */
export const DEFENDED_SHARE = 0.05;

export interface PlatformSet {
  readonly id: PlatformSetId;
  readonly catalogue: Catalogue;
  /** What a default search covers (the built-in set: enabled, not NSFW). */
  readonly searched: readonly Platform[];
  /**
   * How the simulated web defends each platform of the set the catalogue does not say it
   * defends (by id); absent: as its entry's transport says (src/sim/defence.ts `defenceOf`).
   */
  readonly defences?: ReadonlyMap<string, SimDefence>;
}

/** Usernames with accounts on a seeded 40% of platforms each; others exist nowhere. */
export const ACCOUNT_POOL: readonly string[] = Array.from({ length: 64 }, (_, i) => `scout${i}`);
const ACCOUNT_SHARE = 0.4;

/** HTML answers carry 20-80 KB, as real profile pages do, before the text that decides. */
export const PAD_MIN_BYTES = 20_000;
export const PAD_MAX_BYTES = 80_000;

const cache = new Map<string, PlatformSet>();

export function loadPlatformSet(id: PlatformSetId, seed: number): PlatformSet {
  const key = `${id}:${seed}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let catalogue: Catalogue;
  let defences: ReadonlyMap<string, SimDefence> | undefined;
  const defended = /^(defended|escalating)-(.+)$/.exec(id);
  if (id === 'builtin') {
    catalogue = loadBuiltinCatalogue().catalogue;
  } else if (defended) {
    const builtin = loadBuiltinCatalogue().catalogue;
    defences = defendedPlatforms(builtin, defended[2]!, seed);
    catalogue = defendedCatalogue(builtin, defended[1] === 'defended' ? defences : new Map());
  } else {
    const count = Number(id.slice('synthetic-'.length));
    const specs = syntheticPlatforms(count, { seed, mix: 'normal' }).map((s) => s.spec);
    const loaded = loadCatalogue({ platforms: specs, shields: readShieldsDocument() });
    if (loaded.problems.length > 0)
      throw new Error(`synthetic set ${id} has problems: ${JSON.stringify(loaded.problems[0])}`);
    catalogue = loaded.catalogue;
  }
  const selected = selectPlatforms(catalogue);
  const searched = id.endsWith('-challenge-only')
    ? selected.filter((p) => defences?.get(p.id) === 'challenge')
    : selected;
  const set = { id, catalogue, searched, ...(defences ? { defences } : {}) };
  cache.set(key, set);
  return set;
}

/** Every kind of signal a platform's rules read, parts of a group and negated ones included. */
function signalKinds(platform: Platform): Set<string> {
  const kinds = new Set<string>();
  for (const signal of [...platform.detect.exists, ...platform.detect.missing]) {
    const parts = signal.kind === 'all' ? signal.parts : [signal];
    for (const part of parts) kinds.add(part.kind === 'not' ? part.signal.kind : part.kind);
  }
  return kinds;
}

/** A GET of a page read by status and text, alone on its host: what a browser reads as any client does. */
function pageAlone(platform: Platform, hostCount: ReadonlyMap<string, number>): boolean {
  if (platform.check.method !== 'GET' || hostCount.get(checkHost(platform)) !== 1) return false;
  const kinds = signalKinds(platform);
  if ([...kinds].some((k) => k !== 'status' && k !== 'text')) return false;
  const codes = [...platform.detect.exists, ...platform.detect.missing].flatMap((s) =>
    s.kind === 'status' ? s.codes : [],
  );
  return codes.every((c) => c < 300 || c >= 400);
}

/** The transport a defence is read past by, the cheapest that gets through. */
const PASSED_BY: Readonly<Record<'handshake' | 'challenge', Transport>> = {
  handshake: 'impersonate',
  challenge: 'browser',
};

/**
 * A seeded DEFENDED_SHARE of the default search's platforms (pages alone on their host, so
 * no other platform shares their defence), the first half defended by handshake, the rest
 * by challenge, as `mix` keeps them.
 */
function defendedPlatforms(builtin: Catalogue, mix: string, seed: number): Map<string, SimDefence> {
  if (!['none', 'handshake', 'challenge', 'both', 'challenge-only'].includes(mix))
    throw new Error(`no defended set ${mix}`);
  const searched = selectPlatforms(builtin);
  const hostCount = new Map<string, number>();
  for (const p of builtin.platforms.filter((q) => q.enabled))
    hostCount.set(checkHost(p), (hostCount.get(checkHost(p)) ?? 0) + 1);
  const order = (p: Platform) => seededRandom(hashSeed(`${seed}:defended:${p.id}`))();
  const chosen = searched
    .filter((p) => pageAlone(p, hostCount))
    .sort((a, b) => order(a) - order(b))
    .slice(0, Math.round(DEFENDED_SHARE * searched.length));
  const half = Math.ceil(chosen.length / 2);
  const kept = (defence: SimDefence) =>
    mix === 'both' ||
    (mix === 'handshake' && defence === 'handshake') ||
    ((mix === 'challenge' || mix === 'challenge-only') && defence === 'challenge');
  const defences = new Map<string, SimDefence>();
  chosen.forEach((p, i) => {
    const defence = i < half ? 'handshake' : 'challenge';
    if (kept(defence)) defences.set(p.id, defence);
  });
  return defences;
}

/** The built-in catalogue with every transport `http` but those `named`, named as their defence needs. */
function defendedCatalogue(builtin: Catalogue, named: ReadonlyMap<string, SimDefence>): Catalogue {
  const transport = (p: Platform): Transport => {
    const defence = named.get(p.id);
    return defence === 'handshake' || defence === 'challenge' ? PASSED_BY[defence] : 'http';
  };
  return Object.freeze({
    ...builtin,
    platforms: Object.freeze(builtin.platforms.map((p) => Object.freeze({ ...p, transport: transport(p) }))),
  });
}

export function platformSetSize(id: PlatformSetId, seed: number): number {
  return loadPlatformSet(id, seed).searched.length;
}

export function latencyOf(profile: LatencyProfile, seed: number, platform: Platform): Latency {
  return platformLatency(profile, seed, platform.id);
}

/**
 * A search of `size` platforms whose sustained rate the request budgets set,
 * not latency or CPU: every platform of the busiest origin (the one whose
 * budget sustains the fewest searches, as sustainedRate finds it), then the
 * first other platforms of `searched`, in its order, that answer within
 * `maxLatencyMs` under `profile` (none that never answers, so the check
 * timeout is not every search's floor). The busiest origin is kept whole, so
 * a search asks it as often as a search of all of `searched` does.
 */
export function budgetBoundSubset(
  searched: readonly Platform[],
  options: {
    readonly size: number;
    readonly maxLatencyMs: number;
    readonly profile: LatencyProfile;
    readonly seed: number;
    readonly budget: BudgetLimit;
  },
): Platform[] {
  const loads = originLoads(searched, options.budget);
  if (loads.length === 0) return [];
  const busiest = loads.reduce((a, b) =>
    b.limit.perSecond / b.platforms.length < a.limit.perSecond / a.platforms.length ? b : a,
  );
  const kept = new Set(busiest.platforms);
  for (const p of searched) {
    if (kept.size >= options.size) break;
    const l = latencyOf(options.profile, options.seed, p);
    if (l !== 'hang' && l <= options.maxLatencyMs) kept.add(p);
  }
  return searched.filter((p) => kept.has(p));
}

export function padBytesOf(seed: number, platform: Platform): number {
  const r = seededRandom(hashSeed(`${seed}:pad:${platform.id}`))();
  return Math.round(PAD_MIN_BYTES + r * (PAD_MAX_BYTES - PAD_MIN_BYTES));
}

function accountsOf(seed: number, platform: Platform): string[] {
  const random = seededRandom(hashSeed(`${seed}:accounts:${platform.id}`));
  return [...platform.known.claimed, ...ACCOUNT_POOL.filter(() => random() < ACCOUNT_SHARE)];
}

function checkHost(platform: Platform): string {
  return new URL(platform.check.url.split(PLACEHOLDER).join('x')).hostname.toLowerCase();
}

/** Every host name a check of the set connects to first (redirect targets aside). */
export function checkHosts(set: PlatformSet): string[] {
  return [...new Set(set.catalogue.platforms.filter((p) => p.enabled).map(checkHost))];
}

/** A limit stricter than the seeded ones, for every site, and how its 429s tell of it. */
export interface StrictLimit {
  readonly perSecond: number;
  readonly answer: LimitAnswer;
}

/** The simulated web's routes for a set under a profile. */
export function emulatePlatformSet(
  set: PlatformSet,
  profile: LatencyProfile,
  seed: number,
  /** Every site limits each address to at most this (below its seeded limit), answering in this form. */
  strict?: StrictLimit,
): { routes: SimRoute[]; problems: number } {
  const platforms = set.catalogue.platforms.filter((p) => p.enabled);
  const latencies = new Map(platforms.map((p) => [p.id, latencyOf(profile, seed, p)]));
  const { defences } = set;
  const emulation = emulateCatalogue(platforms, set.catalogue.shields, {
    ...(defences ? { defence: (p: Platform) => defenceOf(p) ?? defences.get(p.id) } : {}),
    accounts: (p) => accountsOf(seed, p),
    latency: (p) => {
      const l = latencies.get(p.id);
      return typeof l === 'number' ? l : 0;
    },
    override: (p) => (latencies.get(p.id) === 'hang' ? { kind: 'hang' } : undefined),
    padBytes: (p) => padBytesOf(seed, p),
    // Each site rate-limits each client address (429 beyond its seeded limit), as real ones do.
    rateLimit: (p) => (strict ? Math.min(strict.perSecond, siteLimit(p, seed)) : siteLimit(p, seed)),
    ...(strict ? { limitAnswer: strict.answer } : {}),
  });
  // Synthetic platforms tagged gzip answer compressed, as many real ones do.
  const gzipHosts = new Set(platforms.filter((p) => p.tags.includes('gzip')).map(checkHost));
  const routes: SimRoute[] =
    gzipHosts.size === 0
      ? [...emulation.routes]
      : emulation.routes.map((route) => ({
          ...route,
          handle: (req) => {
            const b = route.handle(req);
            return b?.kind === 'respond' && gzipHosts.has(req.host) ? { ...b, encoding: 'gzip' as const } : b;
          },
        }));
  return { routes, problems: emulation.problems.length };
}

export interface PhysicalLimit {
  /** The slowest checked platform's latency, or the timeout when one never answers (ms). */
  readonly limitMs: number;
  readonly slowest: string;
  readonly hanging: number;
  /** Median assigned latency of the checked platforms (ms; hanging ones left out). */
  readonly medianMs: number;
  /**
   * The time a search's checks hold a check slot (`concurrency`) in all: the sum of
   * their latencies, the timeout for one that never answers (ms).
   */
  readonly slotMs: number;
}

/**
 * The shortest time a search over `checked` can take: it cannot end before its
 * slowest platform answers, or, when one never answers, before the timeout.
 */
export function physicalLimit(
  checked: readonly Platform[],
  profile: LatencyProfile,
  seed: number,
  timeoutMs: number,
): PhysicalLimit {
  let limitMs = 0;
  let slowest = '';
  let hanging = 0;
  let slotMs = 0;
  const answered: number[] = [];
  for (const p of checked) {
    const l = latencyOf(profile, seed, p);
    const ms = l === 'hang' ? timeoutMs : Math.min(l, timeoutMs);
    slotMs += ms;
    if (l === 'hang') hanging++;
    else answered.push(l);
    if (ms > limitMs) {
      limitMs = ms;
      slowest = p.id;
    }
  }
  answered.sort((a, b) => a - b);
  return { limitMs, slowest, hanging, medianMs: answered[Math.floor(answered.length / 2)] ?? 0, slotMs };
}
