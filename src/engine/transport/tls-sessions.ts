/**
 * Keeps the TLS sessions undici's connector caches, so they are there to resume.
 * undici holds each server name's session by a weak reference only: the garbage
 * collector takes most of them before the next connection to that origin asks,
 * and that connection then makes a full handshake (certificate chain parsed and
 * verified, the server name checked against it) where a resumed one skips all
 * that. Holding the very session object undici cached (the one its socket's
 * 'session' event carried) keeps undici's weak reference alive; nothing else
 * changes in how undici picks or sends it.
 */
import type { TLSSocket } from 'node:tls';
import { Lru } from '../../lru.js';

export class TlsSessionKeeper {
  /** The latest session per server name, the least recently renewed or read let go first. */
  readonly #sessions: Lru<string, Buffer>;

  /** Keeps at most `max` server names' sessions. */
  constructor(max: number) {
    this.#sessions = new Lru(max);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Holds every session `socket` receives for `servername` from now on. */
  watch(socket: TLSSocket, servername: string): void {
    socket.on('session', (session: Buffer) => this.keep(servername, session));
  }

  keep(servername: string, session: Buffer): void {
    this.#sessions.set(servername, session);
  }

  /** The session kept for `servername`, if any. */
  get(servername: string): Buffer | undefined {
    return this.#sessions.get(servername);
  }
}
