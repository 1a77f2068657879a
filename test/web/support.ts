/**
 * Helpers for the browser tests: a fresh build of the page, headless Chromium,
 * a small catalogue on the simulated web with a known truth, and screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import type { Catalogue } from '../../src/catalogue/platform.js';
import type { Behaviour } from '../../src/sim/behaviour.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = join(REPO, 'screenshots');

/** Builds src/web into a temporary folder, so the tests always see the current source. */
export async function buildWebPage(): Promise<string> {
  const outDir = tempDir('userscout-web-');
  await build({
    configFile: join(REPO, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A screenshot of `page` into SCREENSHOTS, for a person to look at: taken only when SCREENSHOTS=1
 * asks for them, since each costs Chromium a full render and no test reads it.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, name), ...options });
}

/** platform name → category, and who has an account there. */
const FIXTURE: readonly {
  name: string;
  category: string;
  accounts: string[];
  latencyMs: number;
  tags?: string[];
}[] = [
  { name: 'Chirper', category: 'social', accounts: ['alice', 'bob'], latencyMs: 120 },
  { name: 'Photogram', category: 'social', accounts: ['alice'], latencyMs: 260 },
  { name: 'Friendlink', category: 'social', accounts: [], latencyMs: 90 },
  { name: 'Hashbook', category: 'social', accounts: ['bob'], latencyMs: 310 },
  { name: 'CodeNest', category: 'coding', accounts: ['alice'], latencyMs: 180, tags: ['git'] },
  { name: 'GitPlace', category: 'coding', accounts: ['alice', 'bob'], latencyMs: 60, tags: ['git'] },
  { name: 'Stackers', category: 'coding', accounts: [], latencyMs: 220 },
  { name: 'Crates Test', category: 'coding', accounts: [], latencyMs: 140 },
  { name: 'PixelQuest', category: 'gaming', accounts: ['alice'], latencyMs: 400 },
  { name: 'GameVault', category: 'gaming', accounts: [], latencyMs: 150 },
  { name: 'Speedrunners', category: 'gaming', accounts: [], latencyMs: 330 },
  { name: 'TuneShare', category: 'music', accounts: ['alice'], latencyMs: 240 },
  { name: 'BeatLab', category: 'music', accounts: [], latencyMs: 110 },
  { name: 'StreamBox', category: 'video', accounts: ['alice'], latencyMs: 280 },
  { name: 'ClipCity', category: 'video', accounts: ['bob'], latencyMs: 70 },
  { name: 'SketchHub', category: 'art', accounts: ['alice'], latencyMs: 200 },
  { name: 'Artfolio', category: 'art', accounts: [], latencyMs: 160 },
  { name: 'TalkBoard', category: 'forum', accounts: [], latencyMs: 130 },
  { name: 'DevForum', category: 'forum', accounts: [], latencyMs: 350 },
  { name: 'Worknet', category: 'business', accounts: [], latencyMs: 190 },
  { name: 'Gigster', category: 'business', accounts: [], latencyMs: 100 },
  { name: 'Bookworms', category: 'hobby', accounts: [], latencyMs: 210 },
  { name: 'Trailmap', category: 'sports', accounts: [], latencyMs: 170 },
  { name: 'SlowSite', category: 'misc', accounts: [], latencyMs: 50 },
  // Not a plain hit or miss:
  { name: 'ShieldedSocial', category: 'social', accounts: ['alice'], latencyMs: 80 },
  { name: 'DeadHost', category: 'forum', accounts: [], latencyMs: 40 },
  { name: 'LongNames', category: 'gaming', accounts: [], latencyMs: 60 },
];

/** What the page must show for 'alice' with every outcome on. */
export const ALICE = {
  hits: ['Chirper', 'CodeNest', 'GitPlace', 'Photogram', 'PixelQuest', 'SketchHub', 'StreamBox', 'TuneShare'],
  unknown: ['ShieldedSocial'],
  error: ['DeadHost'],
  invalid: ['LongNames'],
  total: FIXTURE.length,
};

/** Usernames starting with `slow` make SlowSite answer after this long, so a search stays running a while. */
export const SLOW_MS = 4000;

export interface WebFixture {
  readonly sim: SimWeb;
  readonly catalogue: Catalogue;
  readonly categories: Record<string, number>;
}

export async function startWebFixture(): Promise<WebFixture> {
  const catalogue = catalogueOf(
    FIXTURE.map((p) =>
      entry(p.name, {
        category: p.category as never,
        ...(p.tags ? { tags: p.tags } : {}),
        ...(p.name === 'LongNames'
          ? { username: { minLength: 8 }, known: { claimed: ['long-enough'], unclaimed: ['nobody-here-7'] } }
          : {}),
      }),
    ),
  );
  const byName = new Map(FIXTURE.map((p) => [p.name, p]));
  const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
    accounts: (p) => byName.get(p.name)?.accounts ?? [],
    latency: (p) => byName.get(p.name)?.latencyMs ?? 0,
    override: (p, username): Behaviour | undefined => {
      if (p.name === 'ShieldedSocial') return { kind: 'waf', vendor: 'cloudflare' };
      if (p.name === 'DeadHost') return { kind: 'reset' };
      if (p.name === 'SlowSite' && username.startsWith('slow'))
        return { kind: 'respond', status: 404, body: 'not here', delayMs: SLOW_MS };
      return undefined;
    },
  });
  if (emulation.problems.length > 0) throw new Error(JSON.stringify(emulation.problems));
  const sim = new SimWeb({ routes: emulation.routes });
  await sim.start();
  const categories: Record<string, number> = {};
  for (const p of FIXTURE) categories[p.category] = (categories[p.category] ?? 0) + 1;
  return { sim, catalogue, categories };
}

/** Settings every browser test uses: no outcome cache, a deadline above SLOW_MS. */
export const SERVICE_SETTINGS = {
  timeoutMs: SLOW_MS + 4000,
  retries: 0,
  cacheHitSeconds: 0,
  cacheMissSeconds: 0,
  cacheOtherSeconds: 0,
} as const;

/** A machine that reaches few platforms: of UNREACHABLE.total, only `answering` answer; the rest refuse the connection or hang. */
export const UNREACHABLE = {
  total: 60,
  answering: ['Site 01', 'Site 02', 'Site 03'],
  /** alice has an account on Site 01 only. */
  hits: ['Site 01'],
  hanging: 3,
  /**
   * A check that hangs gives up after this long. Not shorter: under a loaded
   * machine (the whole suite, Chromium) the TLS handshakes of 60 new hosts can
   * take seconds, and a refused or answering site must never read as a timeout.
   */
  timeoutMs: 8000,
} as const;

export async function startUnreachableFixture(): Promise<WebFixture> {
  const names = Array.from({ length: UNREACHABLE.total }, (_, i) => `Site ${String(i + 1).padStart(2, '0')}`);
  const categories = ['social', 'coding', 'gaming', 'music'] as const;
  const catalogue = catalogueOf(
    names.map((name, i) => entry(name, { category: categories[i % categories.length]! })),
  );
  const answering = new Set<string>(UNREACHABLE.answering);
  const hanging = new Set(names.slice(-UNREACHABLE.hanging));
  const emulation = emulateCatalogue(catalogue.platforms, catalogue.shields, {
    accounts: (p) => ((UNREACHABLE.hits as readonly string[]).includes(p.name) ? ['alice'] : []),
    latency: () => 20,
    override: (p): Behaviour | undefined => {
      if (answering.has(p.name)) return undefined;
      return hanging.has(p.name) ? { kind: 'hang' } : { kind: 'reset' };
    },
  });
  if (emulation.problems.length > 0) throw new Error(JSON.stringify(emulation.problems));
  const sim = new SimWeb({ routes: emulation.routes });
  await sim.start();
  const counts: Record<string, number> = {};
  for (const p of catalogue.platforms) counts[p.category] = (counts[p.category] ?? 0) + 1;
  return { sim, catalogue, categories: counts };
}
