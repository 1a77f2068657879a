/**
 * Case 10: the CPU cost of reading profile details (extractProfile) from hit
 * answers: the exists answer the simulated web gives for every platform of a
 * default search, with its 20-80 KB of filler and, where the platform has
 * `extract` rules, the fields they read. In-process and synchronous: no
 * network, only the pure extraction is timed.
 */
import type { Platform } from '../../src/catalogue/platform.js';
import { PLACEHOLDER } from '../../src/catalogue/template.js';
import { extractProfile } from '../../src/engine/verdict/profile-extract.js';
import type { ResponseView } from '../../src/engine/verdict/response-view.js';
import { synthesizeExists } from '../../src/sim/synthesize.js';
import type { BenchCase } from '../context.js';
import { loadPlatformSet, PAD_MAX_BYTES, PAD_MIN_BYTES, padBytesOf } from '../platform-set.js';

export interface HitAnswer {
  readonly platform: Platform;
  readonly view: ResponseView;
}

/** The hit answer of every platform a default search of the built-in catalogue covers. */
export function hitAnswers(seed: number): HitAnswer[] {
  const set = loadPlatformSet('builtin', seed);
  const out: HitAnswer[] = [];
  for (const platform of set.searched) {
    const url = platform.check.url.split(PLACEHOLDER).join('scout0');
    const synth = synthesizeExists(platform, url, set.catalogue.shields, padBytesOf(seed, platform));
    if (!synth.ok) continue;
    const { answer } = synth;
    const view: ResponseView = answer.landing
      ? {
          status: answer.landing.status,
          headers: {},
          url: new URL(answer.landing.path, url).href,
          redirected: true,
          body: answer.landing.body,
          complete: true,
        }
      : {
          status: answer.status,
          headers: answer.headers,
          url,
          redirected: false,
          body: answer.body,
          complete: true,
        };
    out.push({ platform, view });
  }
  return out;
}

export interface ExtractionCost {
  readonly hits: number;
  readonly cpuMsPer1000: number;
  readonly profiles: number;
}

/** CPU (user + system) of extracting the profiles of `answers` until at least `minHits` are done. */
export function extractionCost(answers: readonly HitAnswer[], minHits: number): ExtractionCost {
  let profiles = 0;
  for (const { platform, view } of answers) if (extractProfile(platform, view)) profiles++; // warm-up
  const rounds = Math.max(1, Math.ceil(minHits / Math.max(1, answers.length)));
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const { platform, view } of answers) extractProfile(platform, view);
  const used = process.cpuUsage(start);
  const hits = rounds * answers.length;
  return { hits, cpuMsPer1000: hits === 0 ? 0 : ((used.user + used.system) / 1000 / hits) * 1000, profiles };
}

/** 0.05 CPU-ms per hit: a quarter of case 2's budget for a whole check. */
export const EXTRACTION_PER_1000_TARGET = 50;

export const profileExtractionCase: BenchCase = {
  id: '10',
  title: 'profile extraction from hit answers, CPU per 1000 hits',
  sims: () => [],
  async run(ctx) {
    ctx.log('case 10: profile extraction over the hit answers of the built-in catalogue');
    const answers = hitAnswers(ctx.seed);
    const ruled = answers.filter((a) => a.platform.extract);
    const minHits = ctx.quick ? 10_000 : 50_000;
    const rows = (
      [
        ['every platform', answers],
        ['with extract rules', ruled],
        ['generic only', answers.filter((a) => !a.platform.extract)],
      ] as const
    ).map(([label, list]) => {
      const m = extractionCost(list, minHits);
      return {
        label,
        values: {
          platforms: list.length,
          hits: m.hits,
          cpuMsPer1000: Math.round(m.cpuMsPer1000 * 10) / 10,
          withProfile: list.length === 0 ? null : Math.round((m.profiles / list.length) * 100),
        },
      };
    });
    const all = rows[0]!.values.cpuMsPer1000;
    return {
      id: this.id,
      title: this.title,
      columns: [
        { key: 'platforms', title: 'platforms', better: 'none' },
        { key: 'hits', title: 'hits timed', better: 'none' },
        { key: 'cpuMsPer1000', title: 'CPU ms/1000 hits', better: 'lower', digits: 1 },
        { key: 'withProfile', title: '% with a profile', better: 'none' },
      ],
      rows,
      targets: [
        {
          text: `<= ${EXTRACTION_PER_1000_TARGET} CPU-ms per 1000 hits (${all})`,
          value: all,
          met: all <= EXTRACTION_PER_1000_TARGET,
        },
      ],
      notes: [
        `answers as the simulated web gives them for a hit: HTML with ${PAD_MIN_BYTES / 1000}-${PAD_MAX_BYTES / 1000} KB of filler, JSON API answers as built from each platform's rules, with the fields its extract rules read`,
        'CPU = user + system of the benchmark process around extractProfile alone, after one warm-up pass; each answer is extracted many times',
      ],
      settings: {},
    };
  },
};
