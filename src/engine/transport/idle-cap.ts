/**
 * A cap on the idle connections an origin keeps open. undici's pool keeps every
 * connection it ever opened to an origin until the server's keep-alive ends (the
 * sites' hint, 60 s or more, wins over ours), and opens one for each request
 * that finds the others busy: a check sent together with its control, or a few
 * searches reaching the same site at once, each leave a connection behind, and
 * a site whose host names the user (`{username}.example.com`) is reached by one
 * search only. Each idle TLS connection costs about 100 KB (socket, TLS buffers,
 * parser), kept for a minute after every search.
 *
 * undici's pool hands a request to the first client in its list that is free,
 * so its first clients carry the steady traffic and the later ones only what
 * arrives while those are busy. The first `kept` clients keep their connection
 * as undici would; the later ones close theirs once idle for `graceMs`, long
 * enough for the origin's next paced request to find it (the default budget
 * sends one every 250 ms) and short against a minute. The pool's clients are
 * never removed, only their sockets closed: a later burst opens them again.
 */
import type { Dispatcher, Client as UndiciClient } from 'undici';
import { Client } from './undici-parts.js';

export interface IdleCap {
  /** Connections per origin kept open while idle, as long as the keep-alive allows. */
  readonly kept: number;
  /** How long any further connection stays open once idle (ms). */
  readonly graceMs: number;
}

/** A pool's `factory`, for one pool: its first `kept` clients keep alive, the others close when idle. */
export function idleCappedClients(cap: IdleCap): (origin: URL, options: object) => Dispatcher {
  const keeping = new Set<Dispatcher>();
  return (origin, options) => {
    const opts = options as UndiciClient.Options;
    if (keeping.size < cap.kept) {
      const client = new Client(origin, opts);
      keeping.add(client);
      // undici's pool drops a client whose connection failed; its place goes to the next one made.
      client.on('connectionError', () => keeping.delete(client));
      return client;
    }
    return new Client(origin, { ...opts, keepAliveTimeout: cap.graceMs, keepAliveMaxTimeout: cap.graceMs });
  };
}
