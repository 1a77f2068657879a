/**
 * What one poll of a finished search costs: starts the service in this
 * process against the simulated web (the built-in catalogue, zero latency,
 * logging at the default level to a file), runs one search to its end, then
 * polls `GET /api/search?id=` POLLS times (hits only, then include=all) and
 * prints the process CPU per poll (client and server together, so compare
 * runs of this script only). Run under `node --cpu-prof --import tsx` for a
 * profile: `npx tsx bench/poll-profile.ts` prints the figures only.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/service.js';
import { SimWeb } from '../src/sim/server.js';
import { emulatePlatformSet, loadPlatformSet } from './platform-set.js';

const POLLS = Number(process.env.POLLS ?? 3000);
const set = loadPlatformSet('builtin', 1);
const sim = new SimWeb({ routes: emulatePlatformSet(set, 'zero', 1).routes });
await sim.start();
const dataDir = mkdtempSync(join(tmpdir(), 'userscout-poll-'));
const caFile = join(dataDir, 'sim-ca.pem');
writeFileSync(caFile, sim.caCert);
const config = loadConfig(
  {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    connectTo: sim.connectTo,
    caFile,
    refusePrivate: false,
    readLimit: 10_000_000,
    // CACHE=0 measures the uncached path, the one every poll of a running search takes.
    finishedAnswerCacheEntries: Number(process.env.CACHE ?? 1000),
  },
  {},
);
const service = await createService(config, {
  catalogue: set.catalogue,
  logger: { level: config.logLevel, file: join(dataDir, 'server.log') },
});
const url = await service.listen();
const dispatcher = new Agent({ connections: 8 });

// The search's CPU too (the simulated web, the engine, the store and the 5 polls a second): per 1000 checks.
const searchCpu = process.cpuUsage();
const started = (await (
  await fetch(`${url}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'scout1' }),
  })
).json()) as { queryId: string };
for (;;) {
  const body = (await (await fetch(`${url}/api/search?id=${started.queryId}`)).json()) as {
    status: string;
    progress: object;
  };
  if (body.status !== 'running') {
    const cpu = process.cpuUsage(searchCpu);
    const checked = (body.progress as { checked: number }).checked;
    console.log(`search ${body.status}: ${JSON.stringify(body.progress)}`);
    console.log(
      `search: ${(((cpu.user + cpu.system) / 1000 / checked) * 1000).toFixed(0)} CPU-ms per 1000 checks`,
    );
    break;
  }
  await new Promise((r) => setTimeout(r, 200));
}

async function measure(label: string, query: string): Promise<void> {
  const target = `${url}/api/search?id=${started.queryId}${query}`;
  const before = process.cpuUsage();
  const t0 = performance.now();
  let bytes = 0;
  // Eight clients at once, each polling in turn.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = 0; i < POLLS / 8; i++) {
        const r = await fetch(target, { dispatcher } as RequestInit);
        bytes += (await r.arrayBuffer()).byteLength;
      }
    }),
  );
  const cpu = process.cpuUsage(before);
  const ms = performance.now() - t0;
  console.log(
    `${label}: ${POLLS} polls, ${((cpu.user + cpu.system) / 1000 / POLLS).toFixed(3)} CPU-ms per poll, ${(ms / POLLS).toFixed(3)} ms wall per poll, ${Math.round(bytes / POLLS)} bytes each`,
  );
}

await measure('finished search, hits', '');
await measure('finished search, include=all', '&include=all');
await dispatcher.close();
await service.close();
await sim.stop();
