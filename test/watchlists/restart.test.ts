/**
 * The embedded service as a real OS process, killed with SIGKILL: a webhook
 * delivery under way when the process dies is delivered after the restart,
 * and the delivery log shows the attempt the kill interrupted (recorded before
 * it was sent) and the one that delivered it; a run that fell due while the
 * service was down happens when it starts again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { createStore } from '../../src/store/create-store.js';
import { killHard, simServeEnv, startUserscout, type UserscoutProcess } from '../cluster/processes.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { json, tempDir } from '../support/service.js';
import { eventually, Receiver } from './support.js';

const KEY = 'usk_watchlist-restart-test-key';
const specs = [entry('Alpha'), entry('Bravo')];
const catalogue = catalogueOf(specs);
const sim = new SimWeb({ routes: emulateCatalogue(catalogue.platforms, catalogue.shields).routes });
const receiver = new Receiver();
const processes: UserscoutProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  await sim.start();
  await receiver.start();
  const dir = tempDir('userscout-watch-restart-');
  const catalogueFile = join(dir, 'catalogue.json');
  writeFileSync(catalogueFile, JSON.stringify({ platforms: specs }));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const store = createStore({ kind: 'sqlite', path: join(dir, 'userscout.db') });
  await store.createApiKey({
    id: 'k1',
    name: 'restart',
    tier: 'professional',
    hash: hashApiKey(KEY),
    createdAt: Date.now(),
  });
  await store.close();
  env = {
    ...simServeEnv({
      dataDir: dir,
      catalogueFile,
      connectTo: sim.connectTo,
      caFile,
      timeoutMs: 3000,
    }),
    USERSCOUT_WEBHOOK_ALLOW_PRIVATE: 'true',
    USERSCOUT_WATCHLIST_TICK_MS: '50',
    USERSCOUT_WATCHLIST_LEASE_MS: '1000',
    USERSCOUT_WATCHLIST_MIN_INTERVAL_MS: '1000',
    USERSCOUT_WEBHOOK_TIMEOUT_MS: '10000',
    USERSCOUT_WEBHOOK_RETRY_BASE_MS: '100',
  };
}, 60_000);

afterAll(async () => {
  await Promise.all(processes.map(killHard));
  await receiver.stop();
  await sim.stop();
}, 30_000);

async function start(name: string): Promise<UserscoutProcess> {
  const p = await startUserscout(name, 'all', env);
  processes.push(p);
  return p;
}

const api = (p: UserscoutProcess, path: string, body?: unknown) =>
  json(`${p.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('watchlists across a SIGKILL', () => {
  it('delivers an event whose delivery was under way, once as the log tells, and runs what fell due meanwhile', {
    timeout: 120_000,
  }, async () => {
    const first = await start('first');
    receiver.hold = true;
    const hooked = await api(first, '/api/watchlists', {
      names: ['alice'],
      intervalSeconds: 3600,
      webhookUrl: receiver.url,
      notify: 'every_run',
    });
    expect(hooked.status).toBe(201);
    const { id, webhookSecret } = hooked.body;
    expect(webhookSecret).toBeTruthy();
    const due = await api(first, '/api/watchlists', { names: ['bob'], intervalSeconds: 2 });
    await eventually('the first run of the other watchlist', async () =>
      (await api(first, `/api/watchlists/${due.body.id}`)).body.runs >= 1 ? true : undefined,
    );
    // The receiver holds the request: the delivery is under way when the process dies.
    await eventually('the delivery under way', () => (receiver.received.length === 1 ? true : undefined));
    await killHard(first);
    const killedAt = Date.now();
    receiver.release();
    // Down for longer than the other watchlist's interval: its next run falls due meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const second = await start('second');
    const log = await eventually(
      'the delivery after the restart',
      async () => {
        const d = (await api(second, `/api/watchlists/${id}/deliveries`)).body.deliveries;
        return d?.[0]?.state === 'delivered' ? d : undefined;
      },
      30_000,
    );
    expect(log).toHaveLength(1);
    // The attempt cut short by the kill was recorded before it was sent: the log shows it
    // interrupted (the receiver got it), then the one attempt after the restart, delivered.
    expect(log[0].attempts.map((a: { phase?: string; status?: number }) => [a.phase, a.status])).toEqual([
      ['interrupted', undefined],
      [undefined, 200],
    ]);
    expect(receiver.received).toHaveLength(2);
    const eventIds = receiver.received.map((r) => JSON.parse(r.body).id);
    expect(new Set(eventIds)).toEqual(new Set([log[0].eventId]));
    expect((await api(second, `/api/watchlists/${id}`)).body.runs).toBe(1);

    // The other watchlist fell due while the service was down: it runs after the restart.
    const other = await eventually(
      'the missed run',
      async () => {
        const w = (await api(second, `/api/watchlists/${due.body.id}`)).body;
        return w.lastRun && Date.parse(w.lastRun.startedAt) > killedAt ? w : undefined;
      },
      30_000,
    );
    expect(other.lastRun.searches.bob).toBeTruthy();
  });
});
