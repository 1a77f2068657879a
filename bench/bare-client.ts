/**
 * The floor under a CLI search's CPU: a bare undici client in a process of its own,
 * one GET to each platform's check URL, one shared secure context, nothing else (no
 * catalogue, classification, controls or retries). What it costs is what Node's
 * HTTP and TLS cost for the same connections; the CLI's CPU above it is ours.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Platform } from '../src/catalogue/platform.js';
import { parseConnectTo, resolveConnectTo } from '../src/engine/transport/connect-to.js';
import { buildRequest } from '../src/engine/verdict/request.js';
import type { SimHandle } from './context.js';
import { runToEnd } from './run-to-end.js';

const UNDICI = fileURLToPath(new URL('../node_modules/undici/index.js', import.meta.url));

/** Requests at once (the CLI begins at most 32 connections at once, and sends all it may). */
export const AT_ONCE = 64;

export interface BareClientRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly maxRssMb: number;
  readonly requests: number;
  /** Requests that got no answer (a hanging platform, a refused handshake). */
  readonly failed: number;
}

/**
 * The client, run as `node --input-type=module`: reads its URLs and settings from the
 * JSON file named in its environment and prints one line of figures as it ends.
 */
const SCRIPT = `
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
const { urls, ca, routes, undici, atOnce, timeoutMs } = JSON.parse(readFileSync(process.env.BARE_CLIENT_INPUT, 'utf8'));
const { Agent, request } = await import(undici);
const secureContext = tls.createSecureContext({ ca: [...tls.rootCertificates, ca] });
const agent = new Agent({
  connect: (options, callback) => {
    const to = routes[options.hostname + ':' + (options.port || 443)];
    const socket = tls.connect({ host: to.host, port: to.port, servername: options.hostname, secureContext, ALPNProtocols: ['http/1.1'] });
    let told = false;
    const tell = (error) => {
      if (told) return;
      told = true;
      clearTimeout(late);
      callback(error, error ? null : socket);
    };
    // A handshake that never ends fails at the deadline, as undici's own connector would.
    const late = setTimeout(() => { tell(new Error('connect timeout')); socket.destroy(); }, timeoutMs);
    socket.once('secureConnect', () => tell(null));
    socket.once('error', (error) => tell(error));
    return socket;
  },
});
const started = performance.now();
let next = 0, failed = 0;
async function worker() {
  while (next < urls.length) {
    const url = urls[next++];
    try {
      const answer = await request(url, { dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      await answer.body.text();
    } catch {
      failed++;
    }
  }
}
await Promise.all(Array.from({ length: atOnce }, worker));
const usage = process.resourceUsage();
process.stdout.write(JSON.stringify({ wallMs: performance.now() - started, cpuUs: usage.userCPUTime + usage.systemCPUTime, maxRssKb: usage.maxRSS, requests: urls.length, failed }) + '\\n');
process.exit(0);
`;

/** One GET to each https check URL of `platforms` for `username`, against `sim`. */
export async function runBareClient(
  sim: SimHandle,
  platforms: readonly Platform[],
  username: string,
  workDir: string,
  timeoutMs: number,
): Promise<BareClientRun> {
  const urls = platforms.flatMap((platform) => {
    const built = buildRequest(platform, username, {});
    return built.ok && built.request.url.startsWith('https://') ? [built.request.url] : [];
  });
  // Where each origin connects, by the CLI's own --connect-to rules, worked out here.
  const rules = sim.connectTo.map(parseConnectTo);
  const routes = Object.fromEntries(
    urls.map((url) => {
      const { hostname, port } = new URL(url);
      const origin = `${hostname}:${port || 443}`;
      return [origin, resolveConnectTo(rules, hostname, Number(port) || 443)];
    }),
  );
  const input = join(workDir, 'bare-client-input.json');
  const ca = readFileSync(sim.caFile, 'utf8');
  writeFileSync(input, JSON.stringify({ urls, ca, routes, undici: UNDICI, atOnce: AT_ONCE, timeoutMs }));
  const { code, out, err } = await runToEnd(['--input-type=module', '-e', SCRIPT], {
    BARE_CLIENT_INPUT: input,
  });
  const line = out.trim().split('\n').pop();
  if (code !== 0 || !line)
    throw new Error(`bare client failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' ')}`);
  const figures = JSON.parse(line) as {
    wallMs: number;
    cpuUs: number;
    maxRssKb: number;
    requests: number;
    failed: number;
  };
  return {
    wallMs: figures.wallMs,
    cpuMs: figures.cpuUs / 1000,
    maxRssMb: figures.maxRssKb / 1024,
    requests: figures.requests,
    failed: figures.failed,
  };
}
