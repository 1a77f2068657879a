import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BrowserDirectory } from './browser-directory.js';
import { BrowserPool } from './browser-pool.js';
import { TransportTally } from './transport-tally.js';

interface FakeServer {
  readonly endpoint: string;
  killed: boolean;
  readonly browsers: Set<() => void>;
}

/** Playwright's chromium as far as the pool uses it: servers by endpoint, each connection told when its server goes. */
function fakeChromium() {
  const servers = new Map<string, FakeServer>();
  let launched = 0;
  const chromium = {
    launchServer: async () => {
      const server: FakeServer = {
        endpoint: `ws://127.0.0.1:1/${launched++}`,
        killed: false,
        browsers: new Set(),
      };
      servers.set(server.endpoint, server);
      const end = async () => {
        server.killed = true;
        for (const disconnected of server.browsers) disconnected();
      };
      return {
        wsEndpoint: () => server.endpoint,
        process: () => ({ pid: 0, exitCode: null, signalCode: null }),
        kill: end,
        close: end,
      };
    },
    connect: async (endpoint: string) => {
      const server = servers.get(endpoint);
      if (!server || server.killed) throw new Error(`connect ECONNREFUSED ${endpoint}`);
      let connected = true;
      const listeners: (() => void)[] = [];
      const disconnected = () => {
        if (!connected) return;
        connected = false;
        server.browsers.delete(disconnected);
        for (const listener of listeners) listener();
      };
      server.browsers.add(disconnected);
      return {
        endpoint,
        on: (_event: 'disconnected', listener: () => void) => listeners.push(listener),
        isConnected: () => connected,
        close: async () => disconnected(),
      };
    },
  };
  return { chromium, servers };
}

/** A pool over `directory`, as one search thread has. */
function poolOf(directory: BrowserDirectory, chromium: ReturnType<typeof fakeChromium>['chromium']) {
  const tally = new TransportTally();
  const pool = new BrowserPool({
    size: directory.places,
    tally,
    directory,
    launch: async () => ({ chromium: chromium as never, options: {} }),
    // A launch bounded in milliseconds, so that a launch left by a thread that died is seen at once.
    launchMs: 100,
    pollMs: 5,
  });
  return { pool, tally };
}

const endpointOf = (browser: unknown) => (browser as { endpoint: string }).endpoint;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe("a browser pool over the process's directory", () => {
  it('launches in place of a thread that died while it launched', async () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    // A thread claimed the place and died before it published its browser.
    expect(directory.claim(0)).toBe(0);
    const { chromium } = fakeChromium();
    const { pool, tally } = poolOf(directory, chromium);
    const { done } = await pool.acquire();
    expect(directory.read(0)).toMatchObject({ state: 'up', generation: 1 });
    expect(tally.read()).toMatchObject({ launches: 1, crashes: 0 });
    await done('closed');
    await pool.close();
  });

  it('kills the browser of a thread that died, by its pid, when its endpoint no longer answers', async () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    // Chromium outlives the thread that launched it (its server died with the thread).
    const orphan = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(orphan);
    expect(directory.claim(0)).toBe(0);
    expect(directory.publish(0, 0, 'ws://127.0.0.1:1/gone', orphan.pid ?? 0)).toBe(true);
    const { chromium } = fakeChromium();
    const { pool } = poolOf(directory, chromium);
    const { done } = await pool.acquire();
    expect(directory.read(0)).toMatchObject({ state: 'up', generation: 1 });
    await expect.poll(() => orphan.signalCode, { timeout: 2_000 }).toBe('SIGKILL');
    await done('closed');
    await pool.close();
  });

  it('lets go of its browser once another thread freed its place, so the place holds one browser', async () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    const { chromium, servers } = fakeChromium();
    const { pool: owner, tally } = poolOf(directory, chromium);
    const first = await owner.acquire();
    await first.done('closed');
    const launched = directory.read(0);
    expect(launched).toMatchObject({ state: 'up', generation: 0 });
    // Another thread lost its connection and freed the place; a third launched a replacement there.
    expect(directory.release(0, 0)).toBe(true);
    const { pool: other } = poolOf(directory, chromium);
    const replacement = await other.acquire();
    expect(servers.size).toBe(2);
    const second = await owner.acquire();
    expect(endpointOf(second.pooled.browser)).toBe(endpointOf(replacement.pooled.browser));
    expect([...servers.values()].filter((server) => !server.killed)).toHaveLength(1);
    // Not a crash the owner saw: the thread that freed the place counts it.
    expect(tally.read()).toMatchObject({ crashes: 0 });
    await second.done('closed');
    await replacement.done('closed');
    await owner.close();
    await other.close();
    expect([...servers.values()].filter((server) => !server.killed)).toHaveLength(0);
  });

  it('kills a browser whose launching thread died while this thread was connected to it', async () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    const orphan = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(orphan);
    const { chromium } = fakeChromium();
    // The owner thread's server (its relay) at an endpoint, Chromium at the orphan's pid.
    const relay = await chromium.launchServer();
    expect(directory.claim(0)).toBe(0);
    expect(directory.publish(0, 0, relay.wsEndpoint(), orphan.pid ?? 0)).toBe(true);
    const { pool, tally } = poolOf(directory, chromium);
    const first = await pool.acquire();
    await first.done('closed');
    // The owner thread dies: its server with it, Chromium lives on.
    await relay.kill();
    const second = await pool.acquire();
    await second.done('closed');
    expect(tally.read()).toMatchObject({ crashes: 1, launches: 1 });
    await expect.poll(() => orphan.signalCode, { timeout: 2_000 }).toBe('SIGKILL');
    await pool.close();
  });

  it("spreads the contexts of the process's threads over its browsers by their count together", async () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(2));
    const { chromium, servers } = fakeChromium();
    const { pool: one } = poolOf(directory, chromium);
    const { pool: two } = poolOf(directory, chromium);
    const first = await one.acquire();
    // The other thread has nothing open of its own, yet its context goes to the place with none.
    const second = await two.acquire();
    expect(servers.size).toBe(2);
    expect(endpointOf(second.pooled.browser)).not.toBe(endpointOf(first.pooled.browser));
    expect([directory.open(0), directory.open(1)]).toEqual([1, 1]);
    await first.done('closed');
    const third = await two.acquire();
    expect(endpointOf(third.pooled.browser)).toBe(endpointOf(first.pooled.browser));
    await Promise.all([second.done('closed'), third.done('closed')]);
    expect([directory.open(0), directory.open(1)]).toEqual([0, 0]);
    await one.close();
    await two.close();
  });
});
