/**
 * `userscout mcp`: a Model Context Protocol server on stdio, for an assistant
 * to search usernames with. Searches run on this machine's engine, as
 * `userscout search` runs them, or on a service with `--server`. stdout carries
 * the protocol alone; every message goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Platform } from '../catalogue/platform.js';
import { loadConfig } from '../config.js';
import { createEngine } from '../engine/create-engine.js';
import { LocalSearches } from '../mcp/local-searches.js';
import { RemoteSearches } from '../mcp/remote-searches.js';
import type { SearchBackend } from '../mcp/search-backend.js';
import { createMcpServer } from '../mcp/server.js';
import { slowestFirst } from '../runner/check-order.js';
import { SLOW_SHARE_OF_TIMEOUT } from '../tuning.js';
import { loadCommandCatalogue } from './command-inputs.js';
import type { Io } from './io.js';
import { latencyMemoryPath, maybeSlow, readLatencyMemory } from './latency-memory.js';
import { type NetworkCommandOptions, networkOverrides } from './network-options.js';

export interface McpCommandOptions extends NetworkCommandOptions {
  /** A userscout service to search through instead of this machine's engine (USERSCOUT_SERVER). */
  server?: string;
  /** Its professional API key (USERSCOUT_KEY). */
  key?: string;
  catalogue?: string;
}

async function backendFor(
  options: McpCommandOptions,
  env: Readonly<Record<string, string | undefined>>,
  io: Pick<Io, 'err'>,
): Promise<SearchBackend> {
  const config = loadConfig(networkOverrides(options), env, 'cli');
  const server = options.server ?? config.server;
  if (server) {
    const { UserscoutClient } = await import('../client/client.js');
    const key = options.key || config.apiKey;
    return new RemoteSearches(
      new UserscoutClient({ baseUrl: server, ...(key ? { apiKey: key } : {}) }),
      server,
    );
  }
  const catalogue = await loadCommandCatalogue(options.catalogue ?? (config.catalogue || undefined), io.err);
  // Slowest first by what the command line's searches remembered, as `userscout search` orders them.
  const latencies = readLatencyMemory(latencyMemoryPath(config.latencyMemory));
  const engine = createEngine(config, catalogue, {
    eagerControls: maybeSlow(latencies, config.timeoutMs * SLOW_SHARE_OF_TIMEOUT),
  });
  return new LocalSearches({
    engine,
    catalogue,
    maxRunning: config.maxRunningSearches,
    coverageWarningPercent: config.coverageWarningPercent,
    includeNsfw: config.includeNsfw,
    order: (platforms: readonly Platform[]) => slowestFirst(platforms, latencies, config.unmeasuredLatencyMs),
  });
}

/** Serves until the client closes stdin (or SIGTERM/SIGINT), then stops its searches. */
export async function runMcp(
  options: McpCommandOptions,
  io: Pick<Io, 'err'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<void> {
  const backend = await backendFor(options, env, io);
  const server = createMcpServer(backend);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await server.connect(transport);
  io.err(`userscout mcp: serving on stdio; searches run on ${backend.where}`);
  await closed;
  await server.close().catch(() => undefined);
  await backend.close();
}
