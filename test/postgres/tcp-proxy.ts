/**
 * A TCP proxy on a port of its own to a real server, that a test stops (every
 * connection cut, nothing listening) and starts again on the same port: an
 * outage of the server as its clients see it, without touching the server.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens (on an ephemeral port the first time, the same port after). */
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.#target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', resolve);
    });
    this.#port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Stops listening and cuts every connection. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
