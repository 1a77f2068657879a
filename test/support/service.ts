import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue } from '../../src/catalogue/platform.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/service.js';
import type { SimWeb } from '../../src/sim/server.js';

export interface RunningService {
  readonly service: Service;
  readonly url: string;
  readonly config: Config;
}

export function tempDir(prefix = 'userscout-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The real service over HTTP on 127.0.0.1, checking platforms on the simulated web. */
export async function startService(
  sim: SimWeb,
  catalogue: Catalogue,
  overrides: Parameters<typeof loadConfig>[0] = {},
): Promise<RunningService> {
  const dataDir = (overrides.dataDir as string | undefined) ?? tempDir();
  const caFile = join(dataDir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      connectTo: sim.connectTo,
      caFile,
      refusePrivate: false,
      timeoutMs: 3000,
      retryBaseMs: 20,
      retryMaxMs: 200,
      // Off unless a test is about it: a self-check due at a random moment would change what a test sees.
      selfCheckIntervalMs: 0,
      ...overrides,
    },
    {},
  );
  const service = await createService(config, { catalogue });
  const url = await service.listen();
  return { service, url, config };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the API answered and assert on it.
type JsonBody = any;

export async function json(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: JsonBody }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

export function postSearch(url: string, body: unknown, headers: Record<string, string> = {}) {
  return json(`${url}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Polls once every `everyMs` until the search is finished; bounded by `limitMs`. */
export async function pollUntilDone(
  url: string,
  id: string,
  query = '',
  everyMs = 100,
  limitMs = 30_000,
  headers: Record<string, string> = {},
) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await json(`${url}/api/search?id=${id}${query}`, { headers });
    if (r.status !== 200) throw new Error(`poll answered ${r.status}: ${JSON.stringify(r.body)}`);
    if (r.body.status !== 'running') return r;
    if (Date.now() > deadline) throw new Error(`search ${id} still running after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
