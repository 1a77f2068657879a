/**
 * Judging a platform's health from two checks: its known claimed account must
 * be a `hit` and its unclaimed name a `miss` (on a hit-only platform, which never
 * reads miss: `unknown`/`no_miss_rule`). Pure: the checks are run by
 * `userscout catalogue self-check` (src/cli/catalogue-self-check.ts), which
 * also writes the resulting health file.
 */
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import type { HealthFile, HealthVerdict, PlatformHealthEntry } from './health.js';
import { isHitOnly, type Platform } from './platform.js';

export const HEALTH_VERDICTS: readonly HealthVerdict[] = ['healthy', 'broken', 'blocked'];

/**
 * What a probe should give: `unknown` stands for unknown/no_miss_rule, a hit-only
 * platform's answer for a name nobody holds (any other unknown is not it).
 */
export type ProbeExpectation = Extract<OutcomeStatus, 'hit' | 'miss' | 'unknown'>;

/** One of the two checks of a platform: which name, what it should give, what it gave. */
export interface SelfCheckProbe {
  readonly username: string;
  readonly expected: ProbeExpectation;
  readonly outcome: Outcome;
}

export interface PlatformVerdict {
  readonly platform: string;
  readonly platformId: string;
  readonly category: string;
  readonly verdict: HealthVerdict;
  /** Why it is broken or blocked: the probes that decided, with their evidence. */
  readonly reason?: string;
  readonly probes: readonly SelfCheckProbe[];
  /** ms epoch */
  readonly validatedAt: number;
}

/** The names a self-check sends: the first known claimed account and the first unclaimed name. */
export function selfCheckNames(platform: Platform): { claimed: string; unclaimed: string } {
  return { claimed: platform.known.claimed[0]!, unclaimed: platform.known.unclaimed[0]! };
}

/** The probes a self-check sends, each with what it should give (see `ProbeExpectation`). */
export function selfCheckPlan(
  platform: Platform,
): readonly [
  { readonly username: string; readonly expected: 'hit' },
  { readonly username: string; readonly expected: 'miss' | 'unknown' },
] {
  const { claimed, unclaimed } = selfCheckNames(platform);
  return [
    { username: claimed, expected: 'hit' },
    { username: unclaimed, expected: isHitOnly(platform) ? 'unknown' : 'miss' },
  ];
}

/**
 * How one probe reads:
 * - `right`: the expected outcome;
 * - `wrong`: a definite answer that contradicts the entry (the opposite outcome, an
 *   answer none of its rules expects, or a known name its own rule refuses);
 * - `untold`: the platform could not be asked (a bot shield, a rate limit, no
 *   answer at all), which says nothing about the entry.
 */
export function probeReading(probe: SelfCheckProbe): 'right' | 'wrong' | 'untold' {
  const { status, reason } = probe.outcome;
  const notAHit = status === 'unknown' && reason === 'no_miss_rule';
  if (probe.expected === 'unknown' ? notAHit : status === probe.expected) return 'right';
  if (status === 'hit' || status === 'miss' || status === 'invalid') return 'wrong';
  // A hit-only platform's claimed account read as not a hit, as a soft-404 one's would read unexpected.
  if (status === 'unknown' && (reason === 'unexpected_response' || notAHit)) return 'wrong';
  // A control name read as a hit too: the rule no longer tells (engine/controls/control.ts).
  if (status === 'unknown' && reason === 'rule_drift') return 'wrong';
  // unknown/waf, captcha, rate_limited; every error (timeout, dns, connection, tls...).
  return 'untold';
}

/** One line of evidence: `claimed "alice": expected hit, got miss (HTTP 404, URL, missing: status 404)`. */
export function describeProbe(probe: SelfCheckProbe): string {
  const { outcome } = probe;
  const kind = probe.expected === 'hit' ? 'claimed' : 'unclaimed';
  const got = outcome.reason ? `${outcome.status}/${outcome.reason}` : outcome.status;
  const evidence = [
    outcome.evidence.httpStatus === undefined ? undefined : `HTTP ${outcome.evidence.httpStatus}`,
    outcome.evidence.finalUrl,
    outcome.evidence.rule,
  ].filter((part) => part !== undefined && part !== '');
  const expected = probe.expected === 'unknown' ? 'unknown/no_miss_rule' : probe.expected;
  return `${kind} ${JSON.stringify(probe.username)}: expected ${expected}, got ${got} (${evidence.join(', ')})`;
}

/**
 * Broken when any probe is wrong (the entry no longer reads the site right);
 * else blocked when any probe could not tell; else healthy.
 */
export function judgePlatform(
  platform: Platform,
  probes: readonly SelfCheckProbe[],
  validatedAt: number,
): PlatformVerdict {
  const readings = probes.map((probe) => ({ probe, reading: probeReading(probe) }));
  const wrong = readings.filter((r) => r.reading === 'wrong');
  const untold = readings.filter((r) => r.reading === 'untold');
  const base = {
    platform: platform.name,
    platformId: platform.id,
    category: platform.category,
    probes,
    validatedAt,
  };
  if (probes.length === 0) return { ...base, verdict: 'blocked', reason: 'no known names to check' };
  if (wrong.length > 0)
    return { ...base, verdict: 'broken', reason: wrong.map((r) => describeProbe(r.probe)).join('; ') };
  if (untold.length > 0)
    return { ...base, verdict: 'blocked', reason: untold.map((r) => describeProbe(r.probe)).join('; ') };
  return { ...base, verdict: 'healthy' };
}

export type VerdictCounts = Readonly<Record<HealthVerdict, number>>;

export function countVerdicts(verdicts: readonly PlatformVerdict[]): VerdictCounts {
  const counts: Record<HealthVerdict, number> = { healthy: 0, broken: 0, blocked: 0 };
  for (const v of verdicts) counts[v.verdict]++;
  return counts;
}

/** What the health records keep of a platform's verdict (the file, and the store in the service). */
export function healthEntryOf(
  v: Pick<PlatformVerdict, 'verdict' | 'reason' | 'validatedAt'>,
): PlatformHealthEntry {
  return {
    verdict: v.verdict,
    ...(v.reason === undefined ? {} : { reason: v.reason }),
    validatedAt: v.validatedAt,
  };
}

/**
 * The health file after a self-check: this run's verdicts replace those of the
 * same platforms; platforms not checked this time keep their last verdict.
 */
export function updateHealthFile(
  previous: HealthFile | undefined,
  verdicts: readonly PlatformVerdict[],
  generatedAt: number,
): HealthFile {
  const platforms: Record<string, PlatformHealthEntry> = { ...(previous?.platforms ?? {}) };
  for (const v of verdicts) platforms[v.platformId] = healthEntryOf(v);
  const sorted = Object.fromEntries(Object.entries(platforms).sort(([a], [b]) => a.localeCompare(b)));
  return { generatedAt, platforms: sorted };
}
