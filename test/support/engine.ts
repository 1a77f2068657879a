import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue } from '../../src/catalogue/platform.js';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import type { SimWeb } from '../../src/sim/server.js';

/** An engine whose every connection goes to the simulated web, trusting its CA. */
export function engineFor(
  sim: SimWeb,
  catalogue: Catalogue,
  overrides: Parameters<typeof loadConfig>[0] = {},
  options: Parameters<typeof createEngine>[2] = {},
): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'userscout-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig(
    {
      connectTo: sim.connectTo,
      caFile,
      refusePrivate: false,
      timeoutMs: 3000,
      retryBaseMs: 20,
      retryMaxMs: 200,
      ...overrides,
    },
    {},
  );
  return createEngine(config, catalogue, options);
}
