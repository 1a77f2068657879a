/**
 * A site that resets (RST) the connection in the TLS handshake is no bot shield refusing
 * it: read straight by Node and by impit through the egress gateway, it is a reset, an
 * error to retry, never `unknown`/`waf`. The gateway passes the reset on as a reset.
 */
import { createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGateway } from '../../src/engine/transport/egress-gateway.js';
import { impitTransportError } from '../../src/engine/transport/impit-error.js';
import { handshakeRefused, transportErrorReason } from '../../src/engine/transport/transport-error.js';

describe('a reset in the TLS handshake', () => {
  // Resets as soon as the ClientHello comes.
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.resetAndDestroy());
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('is a reset read straight by Node', async () => {
    const error = await new Promise<Error>((resolve) => {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port,
        servername: 'reset.test',
        rejectUnauthorized: false,
      });
      socket.on('error', resolve);
    });
    expect(handshakeRefused(error)).toBe(false);
    expect(transportErrorReason(error)).toBe('connection');
  });

  it('is a reset read by impit through the egress gateway, not a handshake the site ended', async () => {
    const gateway = new EgressGateway({ connectTo: [], refusePrivate: false, connectTimeoutMs: 5000 });
    try {
      const address = await gateway.address();
      const { Impit } = await import('impit');
      const impit = new Impit({
        browser: 'chrome',
        proxyUrl: `http://${address.username}:${address.password}@${address.host}:${address.port}`,
        ignoreTlsErrors: true,
      });
      const error = await impit.fetch(`https://127.0.0.1:${port}/u/alice`).then(
        () => undefined,
        (e: unknown) => impitTransportError(e),
      );
      expect(error).toBeDefined();
      expect(handshakeRefused(error)).toBe(false);
      expect(transportErrorReason(error)).toBe('connection');
    } finally {
      await gateway.close();
    }
  });
});
