/**
 * The free tier's limits count a keyless client by its IPv4 address or by the
 * prefix of its IPv6 address, so a host rotating through its /64 gets no more
 * searches; the client address is taken from X-Forwarded-For only as far as
 * USERSCOUT_TRUST_PROXY trusts the proxies in front.
 * Drives the API by inject (test/support/in-memory-api.ts), whose requests come from 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emulateCatalogue } from '../../src/sim/emulate.js';
import { SimWeb } from '../../src/sim/server.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { injectService, json, postSearch, type RunningService } from '../support/service.js';

const catalogue = catalogueOf([entry('Alpha')]);
const sim = new SimWeb({
  routes: emulateCatalogue(catalogue.platforms, catalogue.shields, { latency: () => 0 }).routes,
});

const running: RunningService[] = [];
async function serve(overrides: Parameters<typeof injectService>[2]): Promise<RunningService> {
  const s = await injectService(sim, catalogue, overrides);
  running.push(s);
  return s;
}

beforeAll(async () => {
  await sim.start();
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.service.close();
});
afterAll(async () => {
  await sim.stop();
});

/** Starts a one-platform search as the client at `address` (behind the proxy); its status. */
async function searchFrom(url: string, address: string): Promise<number> {
  const r = await postSearch(url, { username: 'sam', platforms: ['Alpha'] }, { 'x-forwarded-for': address });
  return r.status;
}

describe('the free limit and IPv6 clients', () => {
  it('counts every address of one /64 as one client, and another /64 as another', async () => {
    const { url } = await serve({ freeLimit: 2, trustProxy: '127.0.0.1' });
    expect(await searchFrom(url, '2001:db8:5:6::1')).toBe(200);
    expect(await searchFrom(url, '2001:db8:5:6:aaaa::2')).toBe(200);
    expect(await searchFrom(url, '2001:db8:5:6:ffff:ffff:ffff:ffff')).toBe(429);
    expect(await searchFrom(url, '2001:db8:5:7::1')).toBe(200);
    // The usage answer counts by the same key.
    const usage = await json(`${url}/api/usage`, { headers: { 'x-forwarded-for': '2001:db8:5:6::99' } });
    expect(usage.body.searches).toMatchObject({ used: 2, remaining: 0 });
  });

  it('takes the prefix from USERSCOUT_IPV6_PREFIX', async () => {
    const { url } = await serve({ freeLimit: 1, trustProxy: '127.0.0.1', ipv6Prefix: 128 });
    expect(await searchFrom(url, '2001:db8:5:6::1')).toBe(200);
    expect(await searchFrom(url, '2001:db8:5:6::2')).toBe(200);
    expect(await searchFrom(url, '2001:db8:5:6::1')).toBe(429);
  });
});

describe('USERSCOUT_TRUST_PROXY', () => {
  it('as a hop count takes the client that many proxies back', async () => {
    const { url } = await serve({ freeLimit: 1, trustProxy: '1' });
    // One trusted hop: the last X-Forwarded-For entry is the client; what it was sent is not believed.
    expect(await searchFrom(url, '198.51.100.1, 203.0.113.9')).toBe(200);
    expect(await searchFrom(url, '198.51.100.2, 203.0.113.9')).toBe(429);
    expect(await searchFrom(url, '198.51.100.2, 203.0.113.10')).toBe(200);
  });

  it('as addresses trusts only proxies there, and off believes no header', async () => {
    const untrusted = await serve({ freeLimit: 1, trustProxy: '10.0.0.0/8' });
    expect(await searchFrom(untrusted.url, '203.0.113.1')).toBe(200);
    // The request came from 127.0.0.1, not a trusted proxy: the header does not name the client.
    expect(await searchFrom(untrusted.url, '203.0.113.2')).toBe(429);
    const off = await serve({ freeLimit: 1, trustProxy: 'false' });
    expect(await searchFrom(off.url, '203.0.113.1')).toBe(200);
    expect(await searchFrom(off.url, '203.0.113.2')).toBe(429);
  });
});
