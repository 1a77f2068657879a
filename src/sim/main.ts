/**
 * `npm run sim` / `userscout sim`: the simulated web, standalone, emulating a
 * catalogue (the built-in one by default). Prints how to point userscout at it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { SettingName } from '../config.js';
import { SIM_DEFAULTS } from './defaults.js';
import { emulateCatalogue } from './emulate.js';
import { type Latency, type LatencyProfile, platformLatency } from './latency.js';
import { hashSeed, seededRandom } from './random.js';
import { SimWeb } from './server.js';
import { siteLimit } from './site-limits.js';

export interface StandaloneOptions {
  readonly port: number;
  readonly latency: LatencyProfile;
  readonly seed: number;
  /** Names that have an account on every platform. */
  readonly everywhere: readonly string[];
  /** A name that has an account on a seeded third of the platforms. */
  readonly demoName: string;
  readonly caOut: string;
  /** Sites answer 429 beyond their seeded rate limit per client address (site-limits.ts). @default false */
  readonly rateLimits?: boolean;
}

export async function startStandaloneSim(
  catalogue: Catalogue,
  options: StandaloneOptions,
): Promise<{ sim: SimWeb; caFile: string }> {
  const platforms = catalogue.platforms.filter((p) => p.enabled);
  const latencies = new Map<string, Latency>(
    platforms.map((p) => [p.id, platformLatency(options.latency, options.seed, p.id)]),
  );
  const emulation = emulateCatalogue(platforms, catalogue.shields, {
    accounts: (p) => {
      const names = [...p.known.claimed, ...options.everywhere];
      if (seededRandom(hashSeed(`${options.seed}:demo:${p.id}`))() < 1 / 3) names.push(options.demoName);
      return names;
    },
    latency: (p) => {
      const l = latencies.get(p.id);
      return typeof l === 'number' ? l : 0;
    },
    override: (p) => (latencies.get(p.id) === 'hang' ? { kind: 'hang' } : undefined),
    padBytes: 20_000,
    ...(options.rateLimits ? { rateLimit: (p: Platform) => siteLimit(p, options.seed) } : {}),
  });
  const sim = new SimWeb({ routes: emulation.routes, truth: emulation.truth, port: options.port });
  await sim.start();
  const caFile = resolve(options.caOut);
  mkdirSync(resolve(caFile, '..'), { recursive: true });
  writeFileSync(caFile, sim.caCert);
  for (const problem of emulation.problems)
    process.stderr.write(`sim: cannot emulate ${problem.platform}: ${problem.problem}\n`);
  return { sim, caFile };
}

/**
 * The settings that point a service (or any engine) at a running simulated web: its
 * connect-to rules, its CA, and private destinations allowed, since the sim is on loopback.
 * Certificates are not verified either: Chromium cannot be given the sim's CA, and the
 * connect-to rules send every connection (ports 80 and 443) to the sim, so the sites that
 * answer a challenge are read through the browser as the others are.
 */
export function simSettings(sim: SimWeb, caFile: string): Partial<Record<SettingName, unknown>> {
  return { connectTo: sim.connectTo, caFile, refusePrivate: false, insecureTls: true };
}

function simBanner(sim: SimWeb, caFile: string, options: StandaloneOptions, platformCount: number): string {
  return [
    `simulated web: ${platformCount} platforms on 127.0.0.1, HTTP port ${sim.port}, HTTPS port ${sim.tlsPort}, latency ${options.latency}, seed ${options.seed}${options.rateLimits ? ', rate limits on' : ''}`,
    `CA certificate: ${caFile}`,
    `ground truth:   curl -s --connect-to ${sim.connectTo[0]} http://sim.userscout.test/__truth`,
    `rate limits:    curl -s --connect-to ${sim.connectTo[0]} http://sim.userscout.test/__stats`,
    `try:            npx userscout search ${options.demoName} ${sim.connectTo.map((r) => `--connect-to ${r}`).join(' ')} --ca-file ${caFile}`,
    'Ctrl-C stops it.',
  ].join('\n');
}

/** Starts the standalone simulated web over the built-in catalogue and runs until SIGINT/SIGTERM. */
export async function runStandaloneSim(options: StandaloneOptions): Promise<void> {
  const { loadBuiltinCatalogue } = await import('../catalogue/builtin.js');
  const { catalogue } = loadBuiltinCatalogue();
  const { sim, caFile } = await startStandaloneSim(catalogue, options);
  process.stdout.write(
    `${simBanner(sim, caFile, options, catalogue.platforms.filter((p) => p.enabled).length)}\n`,
  );
  const stop = () => void sim.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const isMain =
  process.argv[1] &&
  resolve(process.argv[1]).replace(/\.ts$/, '.js') ===
    resolve(new URL(import.meta.url).pathname).replace(/\.ts$/, '.js');
if (isMain) {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
  };
  await runStandaloneSim({
    port: Number(arg('port', String(SIM_DEFAULTS.port))),
    latency: arg('latency', SIM_DEFAULTS.latency) === 'realistic' ? 'realistic' : 'zero',
    seed: Number(arg('seed', String(SIM_DEFAULTS.seed))),
    everywhere: arg('accounts', '').split(',').filter(Boolean),
    demoName: arg('demo-name', SIM_DEFAULTS.demoName),
    caOut: arg('ca-out', SIM_DEFAULTS.caOut),
    rateLimits: args.includes('--rate-limits'),
  });
}
