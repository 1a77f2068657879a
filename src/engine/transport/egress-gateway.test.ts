import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGateway, type GatewayAddress } from './egress-gateway.js';

/** Sends a CONNECT to the gateway and gives back its status line. */
function connectThrough(gateway: GatewayAddress, target: string, auth: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(gateway.port, gateway.host, () => {
      const credentials = Buffer.from(`${gateway.username}:${gateway.password}`).toString('base64');
      socket.write(
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: Basic ${credentials}\r\n` : ''}\r\n`,
      );
    });
    socket.once('data', (chunk) => {
      resolve(chunk.toString('latin1').split('\r\n')[0] ?? '');
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('egress gateway', () => {
  let echo: Server;
  let port = 0;
  const gateways: EgressGateway[] = [];
  const gateway = (refusePrivate: boolean) => {
    const made = new EgressGateway({
      connectTo: [{ fromHost: 'site.example', fromPort: 443, toHost: '127.0.0.1', toPort: port }],
      refusePrivate,
      connectTimeoutMs: 2000,
    });
    gateways.push(made);
    return made.address();
  };

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
    port = (echo.address() as { port: number }).port;
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await new Promise((resolve) => echo.close(resolve));
  });

  it('serves only clients that present its password', async () => {
    const address = await gateway(false);
    expect(await connectThrough(address, 'site.example:443', false)).toMatch(/^HTTP\/1\.1 407/);
    expect(await connectThrough(address, 'site.example:443', true)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('maps through --connect-to and refuses a private destination, saying why', async () => {
    const guarded = new EgressGateway({
      connectTo: [{ fromHost: 'site.example', fromPort: 443, toHost: '127.0.0.1', toPort: port }],
      refusePrivate: true,
      connectTimeoutMs: 2000,
    });
    gateways.push(guarded);
    const address = await guarded.address();
    expect(await connectThrough(address, 'site.example:443', true)).toMatch(/^HTTP\/1\.1 403/);
    expect(guarded.refusal('site.example', 443)).toBe('EUSERSCOUT_BLOCKED_DESTINATION');
    expect(await connectThrough(address, '10.0.0.1:80', true)).toMatch(/^HTTP\/1\.1 403/);
  });
});
