/**
 * `userscout serve` (and `npm start`): the REST service with the embedded
 * defaults. SIGTERM/SIGINT stop it cleanly: running searches keep what they
 * stored and resume at the next start.
 */
import { mkdirSync } from 'node:fs';
import { type Config, loadConfig } from '../config.js';
import { createService } from '../service.js';

export interface ServeOptions {
  port?: string;
  host?: string;
  dataDir?: string;
  catalogue?: string;
  redisUrl?: string;
  role?: string;
}

export async function runServe(options: ServeOptions): Promise<void> {
  const config: Config = loadConfig({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.catalogue !== undefined ? { catalogue: options.catalogue } : {}),
    ...(options.redisUrl !== undefined ? { redisUrl: options.redisUrl } : {}),
    ...(options.role !== undefined ? { role: options.role } : {}),
  });
  if (!config.redisUrl) mkdirSync(config.dataDir, { recursive: true });
  const service = await createService(config, { logger: { level: config.logLevel } });
  const url = await service.listen();
  service.app.log.info(
    {
      url,
      ...(config.redisUrl && config.role === 'worker' ? {} : { docs: `${url}/docs` }),
      platforms: service.catalogue.platforms.length,
      ...(config.redisUrl
        ? { role: config.role, redisPrefix: config.redisPrefix }
        : { dataDir: config.dataDir }),
    },
    'userscout is listening',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'stopping');
    service
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        service.app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
