/**
 * Sites that defend themselves: one search, engine only, realistic latency, over the
 * built-in catalogue where a seeded share of the platforms refuse a handshake that is
 * not a browser's (read through `impersonate`) or answer a JavaScript challenge (read
 * through `browser`), beside the same search with no defended site: its wall time
 * against the physical limit, and the CPU and peak memory each transport adds per check,
 * the browser's own processes counted.
 */
import { SETTINGS } from '../../src/config.js';
import type { BenchCase, BenchContext } from '../context.js';
import { runEngineSearches } from '../engine-run.js';
import {
  DEFENDED_SHARE,
  type DefendedMix,
  loadPlatformSet,
  type PhysicalLimit,
  physicalLimit,
} from '../platform-set.js';
import type { Column, Row } from '../results.js';

const USERNAME = 'scout1';

/** The search with no defended site first: the others are read against it. */
const MIXES: readonly DefendedMix[] = ['none', 'handshake', 'challenge', 'both', 'challenge-only'];

/**
 * The browser cannot be given the simulated web's CA (src/transport/browser.ts), so the
 * engine does not check certificates: every connection goes to the simulated web.
 */
const OVERRIDES = { insecureTls: true } as const;

interface DefendedSearch {
  readonly mix: DefendedMix;
  readonly platforms: number;
  /** Checks answered through each transport other than http. */
  readonly impersonate: number;
  readonly browser: number;
  /** Platforms named browser whose check no browser answered (none installed, or it failed). */
  readonly unreadByBrowser: number;
  readonly wallMs: number;
  readonly limit: PhysicalLimit;
  readonly engineCpuMs: number;
  readonly engineRssMb: number;
  /** The browser's processes (0 when none was launched). */
  readonly browserCpuMs: number;
  readonly browserRssMb: number;
}

function measureDefended(ctx: BenchContext, mix: DefendedMix): Promise<DefendedSearch> {
  return ctx.memo(`defended-sites:${mix}`, async () => {
    ctx.log(`case 12: one search, ${mix === 'none' ? 'no defended site' : `defended by ${mix}`}`);
    const set = `defended-${mix}` as const;
    const { ready, reports } = await runEngineSearches(
      ctx,
      set,
      'realistic',
      [[USERNAME]],
      undefined,
      OVERRIDES,
      [],
      true,
    );
    const report = reports[0]!;
    const byId = new Map(loadPlatformSet(set, ctx.seed).catalogue.platforms.map((p) => [p.id, p]));
    const checked = report.checkedIds.map((id) => byId.get(id)!);
    const named = checked.filter((p) => p.transport === 'browser').length;
    return {
      mix,
      platforms: ready.platforms,
      impersonate: report.transports.impersonate ?? 0,
      browser: report.transports.browser ?? 0,
      unreadByBrowser: named - (report.transports.browser ?? 0),
      wallMs: report.wallMs,
      limit: physicalLimit(checked, 'realistic', ctx.seed, ready.timeoutMs),
      engineCpuMs: report.usage.cpuMs,
      engineRssMb: report.usage.maxRssMb,
      browserCpuMs: report.descendants?.cpuMs ?? 0,
      browserRssMb: report.descendants?.peakRssMb ?? 0,
    };
  });
}

const COLUMNS: readonly Column[] = [
  { key: 'impersonate', title: 'impersonate checks', better: 'none' },
  { key: 'browser', title: 'browser checks', better: 'none' },
  { key: 'wallMs', title: 'wall ms', better: 'lower' },
  { key: 'limitMs', title: 'limit ms', better: 'none' },
  { key: 'ratio', title: 'wall/limit', better: 'lower', digits: 3 },
  { key: 'engineCpuMs', title: 'engine CPU ms', better: 'lower' },
  { key: 'browserCpuMs', title: 'browser CPU ms', better: 'lower' },
  { key: 'cpuPerCheck', title: 'CPU ms per defended check', better: 'lower', digits: 1 },
  { key: 'engineRssMb', title: 'engine peak RSS MB', better: 'lower' },
  { key: 'browserRssMb', title: 'browser peak RSS MB', better: 'lower' },
  { key: 'memoryPerCheck', title: 'peak MB per defended check', better: 'lower', digits: 2 },
];

/** A row, its per-check figures read against the search with no defended site. */
function row(m: DefendedSearch, base: DefendedSearch): Row {
  const defended = m.impersonate + m.browser;
  // The challenged sites searched alone are read against nothing: all they cost is theirs.
  const against = m.mix === 'challenge-only' ? { engineCpuMs: 0, engineRssMb: 0 } : base;
  const extraCpu = m.engineCpuMs + m.browserCpuMs - against.engineCpuMs;
  const extraMemory = m.engineRssMb + m.browserRssMb - against.engineRssMb;
  return {
    label:
      m.mix === 'none'
        ? 'no defended site'
        : m.mix === 'both'
          ? `${DEFENDED_SHARE * 100}% defended, half by handshake, half by challenge`
          : m.mix === 'challenge-only'
            ? 'the challenge half searched alone (no other platform)'
            : `the ${m.mix} half alone`,
    values: {
      impersonate: m.impersonate,
      browser: m.browser,
      wallMs: Math.round(m.wallMs),
      limitMs: m.limit.limitMs,
      ratio: m.wallMs / m.limit.limitMs,
      engineCpuMs: Math.round(m.engineCpuMs),
      browserCpuMs: Math.round(m.browserCpuMs),
      cpuPerCheck: defended > 0 ? extraCpu / defended : null,
      engineRssMb: Math.round(m.engineRssMb),
      browserRssMb: Math.round(m.browserRssMb),
      memoryPerCheck: defended > 0 ? extraMemory / defended : null,
    },
  };
}

export const defendedSitesCase: BenchCase = {
  id: '12',
  title: `sites that defend themselves: one search with ${DEFENDED_SHARE * 100}% of platforms behind a handshake check or a challenge, beside one with none`,
  sims: () => MIXES.map((mix) => [`defended-${mix}`, 'realistic'] as const),
  async run(ctx) {
    const measured: DefendedSearch[] = [];
    for (const mix of MIXES) measured.push(await measureDefended(ctx, mix));
    const base = measured[0]!;
    const both = measured.find((m) => m.mix === 'both')!;
    const unread = measured.reduce((n, m) => n + m.unreadByBrowser, 0);
    return {
      id: this.id,
      title: this.title,
      columns: COLUMNS,
      rows: measured.map((m) => row(m, base)),
      targets: [],
      notes: [
        `the defended platforms: a seeded ${DEFENDED_SHARE * 100}% of the default search's (${both.impersonate + both.browser + both.unreadByBrowser} of ${both.platforms}), pages read by status and text, each alone on its host; the first half named impersonate (the simulated site refuses a handshake that is not a browser's), the rest browser (it answers a challenge whose script sets a cookie and reloads); every other platform goes by http and nothing escalates`,
        'the handshake and challenge rows defend one half each alone, so what each transport costs is read apart; the last row searches the challenged platforms and nothing else, so a browser check does not compete with the rest of the search for the CPU, and its figures are read against nothing (all its CPU and memory, the launch included, over the browser checks answered)',
        'CPU ms per defended check = (engine CPU + browser CPU − engine CPU of the search with no defended site) ÷ the checks answered through impersonate or browser; peak MB per defended check likewise with peak RSS; the browser launch is in the first search that needs it, so it is in these figures',
        "browser CPU and peak RSS: Chromium's processes (the engine's descendants, read from /proc by the benchmark; those that ended counted through the process that waited for them), memory sampled every 100 ms",
        `limit = the slowest checked platform's seeded latency, or the timeout when one never answers; a challenge is answered at once and its reload after the platform's latency`,
        unread > 0
          ? `${unread} checks of platforms named browser were not answered through it: their deadline passed (waiting for a browser context, at most browserContexts at once) or no Chromium is installed (unknown/needs_browser: apt-get install chromium)`
          : 'every browser check went through Chromium',
      ],
      settings: {
        engine: `command-line defaults (timeoutMs ${SETTINGS.timeoutMs.default}, concurrency ${SETTINGS.concurrency.default}, browserContexts ${SETTINGS.browserContexts.default}), insecureTls (the browser cannot trust the simulated web's CA)`,
        username: USERNAME,
      },
    };
  },
};
