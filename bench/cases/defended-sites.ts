/**
 * Sites that defend themselves: one search, engine only, realistic latency, over the
 * built-in catalogue where a seeded share of the platforms refuse a handshake that is
 * not a browser's or answer a JavaScript challenge, beside the same search with no
 * defended site. The headline searches name no transport for the defended platforms, as
 * for sites not known to defend themselves: each check starts by http, meets the defence
 * and escalates (impersonate past a handshake; impersonate, then browser, past a
 * challenge). Further searches name the transport each defence needs, so their checks
 * start there. For each: wall time against the physical limit, the checks each transport
 * answered, and the CPU and peak memory each escalated (or named) check adds, the
 * browser's own processes counted.
 */
import { SETTINGS } from '../../src/config.js';
import type { BenchCase, BenchContext } from '../context.js';
import type { TracedOutcome } from '../engine-child.js';
import { runEngineSearches } from '../engine-run.js';
import {
  DEFENDED_SHARE,
  type DefendedMix,
  loadPlatformSet,
  type PhysicalLimit,
  type PlatformSetId,
  physicalLimit,
} from '../platform-set.js';
import type { Column, Row } from '../results.js';

const USERNAME = 'scout1';

/** How a defended platform's check starts: by http, escalating past the defence; or at the transport its entry names. */
type Start = 'escalated' | 'named';

interface SearchSpec {
  readonly start: Start;
  readonly mix: DefendedMix;
}

/**
 * The search with no defended site first: the others are read against it. Then the
 * escalated searches (the headline), then the named ones, which `--quick` leaves out.
 */
const BASELINE: SearchSpec = { start: 'named', mix: 'none' };
const ESCALATED: readonly SearchSpec[] = (['both', 'handshake', 'challenge', 'challenge-only'] as const).map(
  (mix) => ({
    start: 'escalated',
    mix,
  }),
);
const NAMED: readonly SearchSpec[] = (['handshake', 'challenge', 'both', 'challenge-only'] as const).map(
  (mix) => ({ start: 'named', mix }),
);

function searchesOf(quick: boolean): readonly SearchSpec[] {
  return [BASELINE, ...ESCALATED, ...(quick ? [] : NAMED)];
}

function setOf(spec: SearchSpec): PlatformSetId {
  return spec.start === 'escalated' ? `escalating-${spec.mix}` : `defended-${spec.mix}`;
}

/**
 * The browser cannot be given the simulated web's CA (src/transport/browser.ts), so the
 * engine does not check certificates: every connection goes to the simulated web.
 */
const OVERRIDES = { insecureTls: true } as const;

/** Escalations a search may take per defended platform: a handshake needs one, a challenge two. */
const ESCALATIONS_PER_DEFENDED = 2;

interface DefendedSearch {
  readonly spec: SearchSpec;
  readonly platforms: number;
  readonly defended: number;
  /** The search's escalations (0: escalation off, the default). */
  readonly escalationBudget: number;
  readonly escalationsTaken: number;
  /** Checks whose last answer came through each transport, every platform counted. */
  readonly answeredByHttp: number;
  readonly answeredByImpersonate: number;
  readonly answeredByBrowser: number;
  /** Checks of any platform that got no usable answer (status error: timeouts mostly). */
  readonly endedError: number;
  /** Defended platforms that read hit or miss: the defence was got past. */
  readonly pastDefence: number;
  /** Defended platforms that did not, by outcome reason (status when it has none). */
  readonly stillDefended: Readonly<Record<string, number>>;
  readonly wallMs: number;
  readonly limit: PhysicalLimit;
  readonly engineCpuMs: number;
  readonly engineRssMb: number;
  /** The browser's processes (0 when none was launched). */
  readonly browserCpuMs: number;
  readonly browserRssMb: number;
}

function measureDefended(ctx: BenchContext, spec: SearchSpec): Promise<DefendedSearch> {
  const set = setOf(spec);
  return ctx.memo(`defended-sites:${set}`, async () => {
    const loaded = loadPlatformSet(set, ctx.seed);
    const defendedIds = loaded.searched.filter((p) => loaded.defences?.has(p.id)).map((p) => p.id);
    const escalationBudget = spec.start === 'escalated' ? ESCALATIONS_PER_DEFENDED * defendedIds.length : 0;
    ctx.log(
      `case 12: one search, ${spec.mix === 'none' ? 'no defended site' : `defended by ${spec.mix}, ${spec.start}`}`,
    );
    const { ready, reports } = await runEngineSearches(
      ctx,
      set,
      'realistic',
      [[USERNAME]],
      undefined,
      // Transport memory off: every defended check escalates from http, none starts where an earlier one ended.
      escalationBudget > 0
        ? { ...OVERRIDES, escalations: escalationBudget, transportMemoryTtlMs: 0 }
        : OVERRIDES,
      [],
      true,
      defendedIds,
    );
    const report = reports[0]!;
    const byId = new Map(loaded.catalogue.platforms.map((p) => [p.id, p]));
    const checked = report.checkedIds.map((id) => byId.get(id)!);
    const traced: TracedOutcome[] = Object.values(report.traced);
    const past = traced.filter((o) => o.status === 'hit' || o.status === 'miss');
    const stillDefended: Record<string, number> = {};
    for (const o of traced.filter((t) => !past.includes(t))) {
      const why = `${o.reason ?? o.status} (last answer by ${o.transport})`;
      stillDefended[why] = (stillDefended[why] ?? 0) + 1;
    }
    return {
      spec,
      platforms: ready.platforms,
      defended: defendedIds.length,
      escalationBudget,
      escalationsTaken: report.tally.escalations,
      answeredByHttp: report.transports.http ?? 0,
      answeredByImpersonate: report.transports.impersonate ?? 0,
      answeredByBrowser: report.transports.browser ?? 0,
      endedError: report.statuses.error ?? 0,
      pastDefence: past.length,
      stillDefended,
      wallMs: report.wallMs,
      limit: physicalLimit(checked, 'realistic', ctx.seed, ready.timeoutMs),
      engineCpuMs: report.usage.cpuMs,
      engineRssMb: report.usage.maxRssMb,
      browserCpuMs: report.descendants?.cpuMs ?? 0,
      browserRssMb: report.descendants?.peakRssMb ?? 0,
    };
  });
}

/** The keys are the fields of each row's `values` in the results file. */
const COLUMNS: readonly Column[] = [
  { key: 'defendedPlatforms', title: 'defended platforms', better: 'none' },
  { key: 'escalationBudget', title: 'escalation budget', better: 'none' },
  { key: 'escalationsTaken', title: 'escalations taken', better: 'none' },
  { key: 'answeredByHttp', title: 'checks answered by http', better: 'none' },
  { key: 'answeredByImpersonate', title: 'checks answered by impersonate', better: 'none' },
  { key: 'answeredByBrowser', title: 'checks answered by browser', better: 'none' },
  { key: 'checksEndedError', title: 'checks ended error', better: 'lower' },
  { key: 'defendedPastDefence', title: 'defended read hit/miss', better: 'higher' },
  { key: 'defendedStillUnknown', title: 'defended not read', better: 'lower' },
  { key: 'wallMs', title: 'wall ms', better: 'lower' },
  { key: 'limitMs', title: 'limit ms', better: 'none' },
  { key: 'wallOverLimit', title: 'wall/limit', better: 'lower', digits: 3 },
  { key: 'engineCpuMs', title: 'engine CPU ms', better: 'lower' },
  { key: 'browserCpuMs', title: 'browser CPU ms', better: 'lower' },
  { key: 'enginePeakRssMb', title: 'engine peak RSS MB', better: 'lower' },
  { key: 'browserPeakRssMb', title: 'browser peak RSS MB', better: 'lower' },
  {
    key: 'cpuMsPerCostlierCheck',
    title: 'CPU ms per escalated (or named) check',
    better: 'lower',
    digits: 1,
  },
  {
    key: 'peakMbPerCostlierCheck',
    title: 'peak MB per escalated (or named) check',
    better: 'lower',
    digits: 2,
  },
  { key: 'cpuMsPerCheckPastDefence', title: 'CPU ms per defended check read', better: 'lower', digits: 1 },
];

function labelOf(spec: SearchSpec): string {
  if (spec.mix === 'none') return 'no defended site';
  const what =
    spec.mix === 'both'
      ? `${DEFENDED_SHARE * 100}% defended, half by handshake, half by challenge`
      : spec.mix === 'challenge-only'
        ? 'the challenge half searched alone (no other platform)'
        : `the ${spec.mix} half alone`;
  if (spec.start === 'named') return `named: ${what}`;
  const path =
    spec.mix === 'handshake'
      ? 'http → impersonate'
      : spec.mix === 'challenge' || spec.mix === 'challenge-only'
        ? 'http → impersonate → browser'
        : 'http → impersonate (→ browser)';
  return `escalated (${path}): ${what}`;
}

/** A row, its per-check figures read against the search with no defended site. */
function row(m: DefendedSearch, base: DefendedSearch): Row {
  // Checks whose answer came through a costlier transport: escalated there, or started there as named.
  const costlier = m.answeredByImpersonate + m.answeredByBrowser;
  // The challenged sites searched alone are read against nothing: all they cost is theirs.
  const against = m.spec.mix === 'challenge-only' ? { engineCpuMs: 0, engineRssMb: 0 } : base;
  const extraCpu = m.engineCpuMs + m.browserCpuMs - against.engineCpuMs;
  const extraMemory = m.engineRssMb + m.browserRssMb - against.engineRssMb;
  const per = (extra: number, n: number) => (m.defended > 0 && n > 0 ? extra / n : null);
  return {
    label: labelOf(m.spec),
    values: {
      defendedPlatforms: m.defended,
      escalationBudget: m.escalationBudget,
      escalationsTaken: m.escalationsTaken,
      answeredByHttp: m.answeredByHttp,
      answeredByImpersonate: m.answeredByImpersonate,
      answeredByBrowser: m.answeredByBrowser,
      checksEndedError: m.endedError,
      defendedPastDefence: m.pastDefence,
      defendedStillUnknown: m.defended - m.pastDefence,
      wallMs: Math.round(m.wallMs),
      limitMs: m.limit.limitMs,
      wallOverLimit: m.wallMs / m.limit.limitMs,
      engineCpuMs: Math.round(m.engineCpuMs),
      browserCpuMs: Math.round(m.browserCpuMs),
      enginePeakRssMb: Math.round(m.engineRssMb),
      browserPeakRssMb: Math.round(m.browserRssMb),
      cpuMsPerCostlierCheck: per(extraCpu, costlier),
      peakMbPerCostlierCheck: per(extraMemory, costlier),
      cpuMsPerCheckPastDefence: per(extraCpu, m.pastDefence),
    },
  };
}

/** Why the defended platforms not read were not, per search that had any. */
function stillDefendedNote(measured: readonly DefendedSearch[]): string {
  const parts = measured
    .filter((m) => Object.keys(m.stillDefended).length > 0)
    .map(
      (m) =>
        `${labelOf(m.spec)}: ${Object.entries(m.stillDefended)
          .map(([why, n]) => `${n} ${why}`)
          .join(', ')}`,
    );
  return parts.length === 0
    ? 'every defended platform read hit or miss'
    : `defended platforms not read, by reason: ${parts.join('; ')} (waf: the defence still standing, its escalation not taken or failed; timeout: the check's deadline passed, on whichever try; budget_exhausted: no browser slot within the deadline; needs_browser: no Chromium installed, apt-get install chromium)`;
}

export const defendedSitesCase: BenchCase = {
  id: '12',
  title: `sites that defend themselves: one search with ${DEFENDED_SHARE * 100}% of platforms behind a handshake check or a challenge, escalating from http, beside one with none`,
  sims: (quick) => searchesOf(quick).map((spec) => [setOf(spec), 'realistic'] as const),
  async run(ctx) {
    const measured: DefendedSearch[] = [];
    for (const spec of searchesOf(ctx.quick)) measured.push(await measureDefended(ctx, spec));
    const base = measured[0]!;
    const headline = measured.find((m) => m.spec.start === 'escalated' && m.spec.mix === 'both')!;
    const challenged = [...(loadPlatformSet('escalating-both', ctx.seed).defences?.values() ?? [])].filter(
      (d) => d === 'challenge',
    ).length;
    return {
      id: this.id,
      title: this.title,
      columns: COLUMNS,
      rows: measured.map((m) => row(m, base)),
      targets: [],
      notes: [
        `the defended platforms: a seeded ${DEFENDED_SHARE * 100}% of the default search's (${headline.defended} of ${headline.platforms}; ${challenged} of them by challenge), pages read by status and text, each alone on its host; the first half refuse a handshake that is not a browser's (a Cloudflare block page), the rest answer a challenge whose script sets a cookie and reloads; every other platform goes by http`,
        `escalated rows (the headline): the defended platforms name no transport, as a site not known to defend itself, so each check starts by http, reads the defence (unknown, waf) and is asked again through the next transport (impersonate, then browser) within its deadline; escalations = ${ESCALATIONS_PER_DEFENDED} per defended platform (a handshake needs one, a challenge two), so every defended platform can escalate as far as it needs; transport memory off (transportMemoryTtlMs 0) and a fresh engine process per search, so every check escalates from scratch`,
        'named rows: the defended platforms name the transport their defence needs (impersonate, browser), so their checks start there and nothing escalates (escalations 0, the default); the challenge half searched alone (escalated and named) searches the challenged platforms and nothing else, so a browser check does not compete with the rest of the search for the CPU, and its figures are read against nothing (all its CPU and memory, the launch included, over the browser checks answered)',
        'the halves defend one half each alone, so what each transport costs is read apart: the handshake half is the cost of an escalation to impersonate, the challenge half of one through impersonate to the browser',
        'checks answered by a transport: outcomes whose last answer came through it, every platform counted (an escalation whose next try was not sent or failed leaves the answer before it standing; an outcome with no answer, error, counts as http); checks ended error: the outcomes of every platform with no usable answer (timeouts mostly); defended read hit/miss: defended platforms whose defence was got past',
        'CPU ms per escalated (or named) check = (engine CPU + browser CPU − engine CPU of the search with no defended site) ÷ the checks answered through impersonate or browser; peak MB likewise with peak RSS; CPU ms per defended check read: the same CPU over the defended platforms read hit or miss; the browser launch is in the first search that needs it, so it is in these figures',
        "browser CPU and peak RSS: Chromium's processes (the engine's descendants, read from /proc by the benchmark; those that ended counted through the process that waited for them), memory sampled every 100 ms",
        "limit = the slowest checked platform's seeded latency, or the timeout when one never answers; a defence answers at once (a challenge's reload after the platform's latency), so an escalation adds none to the limit",
        stillDefendedNote(measured),
      ],
      settings: {
        engine: `command-line defaults (timeoutMs ${SETTINGS.timeoutMs.default}, concurrency ${SETTINGS.concurrency.default}, browserContexts ${SETTINGS.browserContexts.default}), insecureTls (the browser cannot trust the simulated web's CA)`,
        escalatedRows: `escalations ${ESCALATIONS_PER_DEFENDED} × defended platforms (${headline.escalationBudget} with both halves), transportMemoryTtlMs 0`,
        username: USERNAME,
      },
    };
  },
};
