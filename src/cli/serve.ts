/**
 * `userscout serve` (and `npm start`): the REST service with the embedded
 * defaults; with `--sim` (`npm run demo`), the simulated web too, and the service
 * pointed at it. SIGTERM/SIGINT stop it cleanly: running searches keep what they
 * stored and resume at the next start. A port it cannot listen on ends it at once.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalogue } from '../catalogue/platform.js';
import { type ListenPort, listenPort } from '../cluster.js';
import { type Config, loadConfig, type SettingName } from '../config.js';
import { UserscoutError } from '../errors.js';
import { createService } from '../service.js';
import { SIM_DEFAULTS } from '../sim/defaults.js';
import type { SimWeb } from '../sim/server.js';
import { CLOSE_AFTER_FAILURE_MS } from '../tuning.js';
import { loadCommandCatalogue } from './command-inputs.js';
import type { Io } from './io.js';

export interface ServeOptions {
  port?: number;
  workerPort?: number;
  host?: string;
  dataDir?: string;
  catalogue?: string;
  redisUrl?: string;
  role?: string;
  sim?: boolean;
}

/** The flag and environment variable of each port setting, for the one line a listen failure prints. */
const PORT_NAMES: Record<ListenPort['setting'], string> = {
  port: '--port or PORT',
  workerPort: '--worker-port or USERSCOUT_WORKER_PORT',
};

/**
 * The one line for a listen failure a person can fix by choosing another port or
 * address; undefined for any other error. Pure.
 */
export function listenFailure(error: unknown, host: string, listen: ListenPort): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const { port } = listen;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use (EADDRINUSE); choose another with ${PORT_NAMES[listen.setting]}`;
    case 'EACCES':
      return `port ${port} on ${host} needs privileges (EACCES); choose one above 1023 with ${PORT_NAMES[listen.setting]}`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine (EADDRNOTAVAIL); choose another with --host or HOST`;
    default:
      return undefined;
  }
}

function fromOptions(options: ServeOptions): Partial<Record<SettingName, unknown>> {
  return {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.workerPort !== undefined ? { workerPort: options.workerPort } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.catalogue !== undefined ? { catalogue: options.catalogue } : {}),
    ...(options.redisUrl !== undefined ? { redisUrl: options.redisUrl } : {}),
    ...(options.role !== undefined ? { role: options.role } : {}),
  };
}

interface Demo {
  readonly sim: SimWeb;
  readonly catalogue: Catalogue;
  readonly settings: Partial<Record<SettingName, unknown>>;
  readonly platforms: number;
}

/** `--sim`: the simulated web over the catalogue the service will search, on free loopback ports. */
async function startDemo(base: Config, dataDir: string, io: Pick<Io, 'err'>): Promise<Demo> {
  if (base.redisUrl)
    throw new UserscoutError(
      'invalid_argument',
      '--sim runs the embedded service only; unset REDIS_URL (or --redis-url)',
    );
  const catalogue = await loadCommandCatalogue(base.catalogue || undefined, io.err);
  const { startStandaloneSim, simSettings } = await import('../sim/main.js');
  const { sim, caFile } = await startStandaloneSim(catalogue, {
    port: 0,
    latency: SIM_DEFAULTS.latency,
    seed: SIM_DEFAULTS.seed,
    everywhere: [],
    demoName: SIM_DEFAULTS.demoName,
    caOut: join(dataDir, 'sim-ca.pem'),
  });
  return {
    sim,
    catalogue,
    settings: { ...simSettings(sim, caFile), dataDir },
    platforms: catalogue.platforms.filter((p) => p.enabled).length,
  };
}

function demoBanner(demo: Demo, url: string): string {
  const name = SIM_DEFAULTS.demoName;
  return [
    `userscout: demo mode: searches go to the simulated web (${demo.platforms} platforms on 127.0.0.1 ports ${demo.sim.port} and ${demo.sim.tlsPort}); nothing leaves this machine`,
    `try: curl -s -X POST ${url}/api/search -H 'content-type: application/json' -d '{"username":"${name}"}'`,
    `     or open ${url}/ and search ${name} (it exists on about a third of the platforms)`,
  ].join('\n');
}

export async function runServe(options: ServeOptions, io: Pick<Io, 'err'>): Promise<void> {
  const overrides = fromOptions(options);
  let demo: Demo | undefined;
  if (options.sim) {
    const dataDir = options.dataDir ?? SIM_DEFAULTS.serveDataDir;
    mkdirSync(dataDir, { recursive: true });
    demo = await startDemo(loadConfig(overrides), dataDir, io);
  }
  const config: Config = loadConfig({ ...overrides, ...demo?.settings });
  if (!config.redisUrl) mkdirSync(config.dataDir, { recursive: true });
  const service = await createService(config, {
    logger: { level: config.logLevel },
    ...(demo ? { catalogue: demo.catalogue } : {}),
  });
  let url: string;
  try {
    url = await service.listen();
  } catch (error) {
    // Close what started (the search thread, the store) but never wait long for it: the
    // caller must see the failure at once, and main ends the process after reporting it.
    const bounded = <T>(p: Promise<T>) =>
      Promise.race([
        p.catch(() => undefined),
        new Promise((r) => setTimeout(r, CLOSE_AFTER_FAILURE_MS).unref()),
      ]);
    await bounded(service.close());
    if (demo) await bounded(demo.sim.stop());
    const listen = listenPort(config);
    const line = listenFailure(error, config.host, listen);
    if (line)
      throw new UserscoutError('invalid_config', line, {
        cause: error,
        details: { setting: listen.setting },
      });
    throw error;
  }
  service.app.log.info(
    {
      url,
      ...(config.redisUrl && config.role === 'worker' ? {} : { docs: `${url}/docs` }),
      platforms: service.catalogue.platforms.length,
      ...(config.redisUrl
        ? { role: config.role, redisPrefix: config.redisPrefix }
        : { dataDir: config.dataDir }),
      ...(demo ? { sim: demo.sim.connectTo } : {}),
    },
    'userscout is listening',
  );
  if (demo) io.err(demoBanner(demo, url));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'stopping');
    service
      .close()
      .then(() => demo?.sim.stop())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        service.app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
