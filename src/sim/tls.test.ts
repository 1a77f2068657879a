import { connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimWeb } from './server.js';

const sim = new SimWeb({ brokenTls: { 'expired.test': 'expired' } });

beforeAll(async () => {
  await sim.start();
});
afterAll(async () => {
  await sim.stop();
});

/** The certificate the simulated web serves for `servername`, and whether a client trusting its CA accepts it. */
function handshake(servername: string): Promise<{ authorized: boolean; certificate: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: sim.tlsPort, servername, ca: sim.caCert }, () => {
      const result = { authorized: socket.authorized, certificate: socket.getPeerCertificate() };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

describe('certificates prepared in groups', () => {
  it('serves each host name a certificate valid for it, shared by the names issued together', async () => {
    await sim.prepareTls(['one.test', 'two.test', 'three.test', 'www.four.test', 'expired.test'], 2);
    const one = await handshake('one.test');
    const two = await handshake('two.test');
    const three = await handshake('three.test');
    const four = await handshake('www.four.test');
    for (const served of [one, two, three, four]) expect(served.authorized).toBe(true);
    expect(one.certificate.subjectaltname).toBe('DNS:one.test, DNS:two.test');
    expect(two.certificate.fingerprint256).toBe(one.certificate.fingerprint256);
    expect(three.certificate.subjectaltname).toBe('DNS:three.test, DNS:*.four.test');
    // A host named broken keeps its own broken certificate.
    await expect(handshake('expired.test')).rejects.toThrow(/expired/);
  });

  it('issues one certificate a name by default, as before any grouping', async () => {
    await sim.prepareTls(['five.test', 'six.test']);
    expect((await handshake('five.test')).certificate.subjectaltname).toBe('DNS:five.test');
    expect((await handshake('six.test')).certificate.subjectaltname).toBe('DNS:six.test');
  });
});
