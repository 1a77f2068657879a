/**
 * The simulated web in a process of its own, emulating one platform set under
 * one latency profile, so its CPU is never counted as userscout's.
 */
import type { LatencyProfile } from '../src/sim/latency.js';
import { SimWeb } from '../src/sim/server.js';
import { runChild } from './child.js';
import { LoopLag, traceLimits } from './limit-trace.js';
import {
  checkHosts,
  emulatePlatformSet,
  loadPlatformSet,
  type PlatformSetId,
  type StrictLimit,
} from './platform-set.js';

export interface SimInput {
  readonly set: PlatformSetId;
  readonly profile: LatencyProfile;
  readonly seed: number;
  /** Idle keep-alive of the simulated servers (ms). */
  readonly keepAliveMs?: number;
  /** Every site limits each address harder than its seeded limit. @default the seeded limits */
  readonly strict?: StrictLimit;
}

export interface SimReady {
  readonly connectTo: string[];
  readonly caCert: string;
  readonly problems: number;
}

/** Requests each site received, over every client address. */
function requestsBySite(requests: Record<string, Record<string, number>>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(requests).map(([site, byAddress]) => [
      site,
      Object.values(byAddress).reduce((a, b) => a + b, 0),
    ]),
  );
}

await runChild<SimInput, SimReady>(async (input) => {
  const set = loadPlatformSet(input.set, input.seed);
  const { routes, problems } = emulatePlatformSet(set, input.profile, input.seed, input.strict);
  // Strict sites keep each request, so the case can say why a 429 came.
  const sim = new SimWeb({
    routes,
    keepAliveTimeoutMs: input.keepAliveMs,
    logRequests: input.strict !== undefined,
  });
  const lag = input.strict ? new LoopLag() : undefined;
  await sim.start();
  // Certificates are made on first use; make them now, or the first search would wait for them.
  await sim.prepareTls(checkHosts(set));
  return {
    ready: { connectTo: sim.connectTo, caCert: sim.caCert, problems },
    handlers: {
      requests: () => sim.requestCount,
      rateLimited: () => sim.stats().limited.total,
      rateLimitedBySite: () => sim.stats().limited.bySite,
      limitTrace: () => (lag ? traceLimits(sim.siteLog, lag) : undefined),
      siteRequests: () => requestsBySite(sim.stats().requests),
    },
    stop: () => {
      lag?.stop();
      return sim.stop();
    },
  };
});
