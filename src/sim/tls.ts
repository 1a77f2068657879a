/**
 * A certificate authority made when the simulated web starts, and a leaf
 * certificate per SNI name signed by it (cached). Clients trust the CA with
 * `--ca-file`, so the real TLS path of the engine is what is tested.
 */
import { webcrypto } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface TestCa {
  readonly cert: string;
  readonly keys: CryptoKeyPair;
}

export type BrokenTls = 'self-signed' | 'wrong-name' | 'expired';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

function keyPair(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function pemKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

let serial = Date.now();
const nextSerial = () => (serial++).toString(16).padStart(16, '0');

export async function createTestCa(): Promise<TestCa> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: 'CN=userscout simulated web CA',
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { cert: cert.toString('pem'), keys };
}

/**
 * The name a certificate for an SNI name is issued to: names with three labels or more
 * share a wildcard certificate of their parent (`*.example.test`), unless broken.
 */
function certifiedName(servername: string, broken?: BrokenTls): string {
  const labels = servername.split('.');
  return !broken && labels.length >= 3 ? `*.${labels.slice(1).join('.')}` : servername;
}

export class CertificateStore {
  readonly #ca: TestCa;
  readonly #caCert: x509.X509Certificate;
  readonly #contexts = new Map<string, Promise<SecureContext>>();
  /** One key pair for every leaf: key generation is what costs, signing is cheap. */
  readonly #leaf: Promise<{ keys: CryptoKeyPair; pem: string }>;

  constructor(ca: TestCa) {
    this.#ca = ca;
    this.#caCert = new x509.X509Certificate(ca.cert);
    this.#leaf = keyPair().then(async (keys) => ({ keys, pem: await pemKey(keys.privateKey) }));
  }

  /**
   * The context for an SNI name; `broken` serves a certificate a client must refuse.
   * Names with three labels or more share a wildcard certificate of their parent
   * (`*.example.test`), so a thousand simulated hosts need far fewer signatures.
   */
  context(servername: string, broken?: BrokenTls): Promise<SecureContext> {
    const name = certifiedName(servername, broken);
    const key = `${broken ?? 'ok'}|${name}`;
    let context = this.#contexts.get(key);
    if (!context) {
      context = this.#issue([name], broken);
      this.#contexts.set(key, context);
    }
    return context;
  }

  /**
   * Issues the certificates of these SNI names now, `perCertificate` names to a certificate
   * (its subject alternative names): a thousand hosts then cost a few signatures, not a
   * thousand. Names already issued keep their certificate.
   */
  prepare(servernames: Iterable<string>, perCertificate = 1): Promise<unknown> {
    const size = Math.max(1, Math.floor(perCertificate));
    const names = [...new Set([...servernames].map((n) => certifiedName(n)))].filter(
      (n) => !this.#contexts.has(`ok|${n}`),
    );
    const issued: Promise<SecureContext>[] = [];
    for (let i = 0; i < names.length; i += size) {
      const group = names.slice(i, i + size);
      const context = this.#issue(group);
      for (const name of group) this.#contexts.set(`ok|${name}`, context);
      issued.push(context);
    }
    return Promise.all(issued);
  }

  async #issue(servernames: readonly string[], broken?: BrokenTls): Promise<SecureContext> {
    const leaf = await this.#leaf;
    const names = broken === 'wrong-name' ? ['not-this-host.invalid'] : servernames;
    const name = names[0]!;
    const now = Date.now();
    const selfSigned = broken === 'self-signed';
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: nextSerial(),
      subject: `CN=${name}`,
      issuer: selfSigned ? `CN=${name}` : this.#caCert.subject,
      notBefore: new Date(broken === 'expired' ? now - 10 * DAY : now - DAY),
      notAfter: new Date(broken === 'expired' ? now - DAY : now + 30 * DAY),
      signingAlgorithm: ALG,
      publicKey: leaf.keys.publicKey,
      signingKey: selfSigned ? leaf.keys.privateKey : this.#ca.keys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
      ],
    });
    return createSecureContext({ cert: cert.toString('pem'), key: leaf.pem });
  }
}
