/**
 * `userscout catalogue self-check [--category C] [--platform P]`: checks each
 * platform's known claimed account (expects `hit`) and unclaimed name (expects
 * `miss`) with the real engine, prints which platforms are healthy, broken or
 * blocked with the evidence, and updates `<dataDir>/health.json`, which the
 * service reads to leave broken platforms out of searches. The judging is in
 * `catalogue/self-check.ts`; this module does the IO.
 */
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { readHealthFile, writeHealthFile } from '../catalogue/health.js';
import type { Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import {
  countVerdicts,
  judgePlatform,
  type PlatformVerdict,
  type SelfCheckProbe,
  selfCheckPlan,
  updateHealthFile,
} from '../catalogue/self-check.js';
import { loadConfig } from '../config.js';
import { createEngine } from '../engine/create-engine.js';
import { type Engine, internalErrorOutcome } from '../engine/engine.js';
import { byPlatformName } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { HEALTH_FILE } from '../service.js';
import { SELF_CHECK_FORMATS, type SelfCheckFormat } from './choices.js';
import { loadCommandCatalogue, parseCategories } from './command-inputs.js';
import type { Io } from './io.js';
import { type NetworkCommandOptions, networkOverrides } from './network-options.js';

export { SELF_CHECK_FORMATS, type SelfCheckFormat } from './choices.js';

export interface SelfCheckCommandOptions extends NetworkCommandOptions {
  catalogue?: string;
  category?: string[];
  platform?: string[];
  format?: string;
  dataDir?: string;
  /** `--no-write` sets false: report only, leave the health file alone. */
  write?: boolean;
  progress?: boolean;
}

export interface SelfCheckDeps {
  /** Environment the settings are read from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** One probe as reported: what was asked, what came back, and the evidence. */
export interface ProbeReport {
  readonly username: string;
  readonly expected: SelfCheckProbe['expected'];
  readonly status: string;
  readonly reason?: string;
  readonly httpStatus?: number;
  readonly finalUrl?: string;
  readonly rule: string;
  readonly responseTime: number;
}

export interface PlatformReport {
  readonly platform: string;
  readonly id: string;
  readonly category: string;
  readonly verdict: PlatformVerdict['verdict'];
  readonly reason?: string;
  readonly validatedAt: string;
  readonly checks: readonly ProbeReport[];
}

export interface SelfCheckReport {
  readonly checkedAt: string;
  readonly platforms: number;
  readonly healthy: number;
  readonly broken: number;
  readonly blocked: number;
  /** Where the health file was written; absent with --no-write. */
  readonly healthFile?: string;
  readonly results: readonly PlatformReport[];
}

export interface SelfCheckOutcome {
  readonly report: SelfCheckReport;
  /** 1 when any platform is broken, so a scheduled run can alert. */
  readonly exitCode: number;
}

export async function runSelfCheck(
  options: SelfCheckCommandOptions,
  io: Pick<Io, 'out' | 'err' | 'stderr'>,
  deps: SelfCheckDeps = {},
): Promise<SelfCheckOutcome> {
  const now = deps.now ?? Date.now;
  const format = (options.format ?? 'table') as SelfCheckFormat;
  if (!SELF_CHECK_FORMATS.includes(format)) {
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${SELF_CHECK_FORMATS.join(', ')}; received ${options.format}`,
    );
  }
  const categories = parseCategories(options.category);
  const config = loadConfig(
    { ...networkOverrides(options), ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}) },
    deps.env ?? process.env,
    'cli',
  );
  const catalogue = await loadCommandCatalogue(options.catalogue ?? (config.catalogue || undefined), io.err);
  // Every enabled platform, NSFW and on-request ones too: their health matters as much.
  const platforms = selectPlatforms(catalogue, {
    categories,
    platforms: options.platform,
    includeNsfw: true,
    includeOnRequest: true,
  });
  if (platforms.length === 0) throw new UserscoutError('invalid_argument', 'no platform matches the filters');
  const healthPath = join(config.dataDir, HEALTH_FILE);
  // Read before checking: an unreadable health file fails now, not after minutes of checks.
  const previous = options.write === false ? undefined : readHealthFile(healthPath);

  const started = now();
  // No control checks: the unclaimed probe is itself a control, and its hit must read as one.
  const engine = createEngine({ ...config, controlWindowMs: 0 }, catalogue);
  const bar =
    options.progress !== false && io.stderr.isTTY === true
      ? new SingleBar({
          stream: io.stderr,
          format: 'self-check [{bar}] {value}/{total} platforms | {broken} broken | {duration}s',
          hideCursor: true,
          clearOnComplete: true,
        })
      : undefined;
  let broken = 0;
  bar?.start(platforms.length, 0, { broken });
  let verdicts: PlatformVerdict[];
  try {
    verdicts = await Promise.all(
      platforms.map(async (platform) => {
        const verdict = judgePlatform(platform, await probePlatform(engine, platform), now());
        if (verdict.verdict === 'broken') broken++;
        bar?.increment(1, { broken });
        return verdict;
      }),
    );
  } finally {
    bar?.stop();
    await engine.close();
  }

  const counts = countVerdicts(verdicts);
  let healthFile: string | undefined;
  if (options.write !== false) {
    writeHealthFile(healthPath, updateHealthFile(previous, verdicts, now()));
    healthFile = healthPath;
  }
  const report: SelfCheckReport = {
    checkedAt: new Date(started).toISOString(),
    platforms: verdicts.length,
    ...counts,
    ...(healthFile === undefined ? {} : { healthFile }),
    results: verdicts.map(platformReport),
  };
  io.out(formatSelfCheckReport(report, format));
  return { report, exitCode: counts.broken > 0 ? 1 : 0 };
}

async function probePlatform(engine: Engine, platform: Platform): Promise<SelfCheckProbe[]> {
  const check = (username: string) =>
    engine.check(platform, username).catch((error: unknown) => internalErrorOutcome(platform, error));
  return Promise.all(
    selfCheckPlan(platform).map(async (probe) => ({ ...probe, outcome: await check(probe.username) })),
  );
}

function platformReport(verdict: PlatformVerdict): PlatformReport {
  return {
    platform: verdict.platform,
    id: verdict.platformId,
    category: verdict.category,
    verdict: verdict.verdict,
    ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    validatedAt: new Date(verdict.validatedAt).toISOString(),
    checks: verdict.probes.map(({ username, expected, outcome }) => ({
      username,
      expected,
      status: outcome.status,
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
      ...(outcome.evidence.httpStatus === undefined ? {} : { httpStatus: outcome.evidence.httpStatus }),
      ...(outcome.evidence.finalUrl === undefined ? {} : { finalUrl: outcome.evidence.finalUrl }),
      rule: outcome.evidence.rule,
      responseTime: outcome.responseTime,
    })),
  };
}

/** Table: one line per broken or blocked platform with its evidence, then the totals. */
export function formatSelfCheckReport(report: SelfCheckReport, format: SelfCheckFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  const order = { broken: 0, blocked: 1, healthy: 2 } as const;
  const unwell = report.results
    .filter((r) => r.verdict !== 'healthy')
    .sort((a, b) => order[a.verdict] - order[b.verdict] || byPlatformName(a, b));
  const width = Math.max(0, ...unwell.map((r) => r.platform.length));
  const lines = unwell.map((r) => `${r.verdict.padEnd(7)}  ${r.platform.padEnd(width)}  ${r.reason ?? ''}`);
  lines.push(
    `self-check of ${report.platforms} platform${report.platforms === 1 ? '' : 's'}: ${report.healthy} healthy, ${report.broken} broken, ${report.blocked} blocked${report.healthFile ? `; health written to ${report.healthFile}` : ''}`,
  );
  return lines.join('\n');
}
