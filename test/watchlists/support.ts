/**
 * A webhook receiver on loopback for the watchlist tests: it records every
 * request with its raw body and answers with the statuses it is told to
 * (200 once they run out), or not at all while `hold` is set.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Statuses to answer with, in order; 200 once empty. */
  readonly statuses: number[] = [];
  /** When set, requests are recorded but never answered (until `release`). */
  hold = false;
  readonly #held: (() => void)[] = [];
  #server: Server | undefined;
  url = '';

  async start(): Promise<string> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        this.received.push({
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const answer = () => {
          response.statusCode = this.statuses.shift() ?? 200;
          response.end(response.statusCode === 200 ? 'ok' : 'receiver failed');
        };
        if (this.hold) this.#held.push(answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server!.address() as AddressInfo).port}/hook`;
    return this.url;
  }

  release(): void {
    this.hold = false;
    for (const answer of this.#held.splice(0)) answer();
  }

  async stop(): Promise<void> {
    this.release();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}

/** Waits until `probe` gives a value, checking every `everyMs`, for at most `limitMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  limitMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
