/**
 * Starting the service: what it says once at start, however it is started (`start`, then
 * `listen`, as an embedding process may; `listen` starts it too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../src/service.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { testConfig } from '../support/service.js';

describe('the service at start', () => {
  const sim = new SimWeb({ routes: [] });
  beforeAll(() => sim.start());
  afterAll(() => sim.stop());

  it('says once that --ca-file keeps the browser off when a platform names it, started then listening', async () => {
    // The simulated web's CA in --ca-file, as every test service trusts it.
    const config = testConfig(sim);
    const lines: { msg?: string }[] = [];
    const service = await createService(config, {
      catalogue: catalogueOf([entry('Alpha'), entry('Bravo', { transport: 'browser' })]),
      logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    try {
      await service.start();
      await service.listen();
      const said = lines.filter((l) => l.msg?.startsWith('browser transport off'));
      expect(said).toEqual([
        {
          ...said[0],
          msg: expect.stringMatching(
            /^browser transport off: the browser transport cannot trust an extra CA \(--ca-file\).*; 1 platform naming it will read unknown \(needs_browser\)$/,
          ),
        },
      ]);
    } finally {
      await service.close();
    }
  });
});
