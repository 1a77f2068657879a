/**
 * The certificates impit trusts. It takes no CA option and loads its trust store once
 * per process, from the file SSL_CERT_FILE names when its first client is made; every
 * later client shares that store. So the first client made fixes the extra CAs for the
 * process, and a client asked for another set is refused rather than silently given
 * the first one's (which would trust a CA it was not given, or miss one it was).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { UserscoutError } from '../../errors.js';

/** The extra CAs impit was first made with in this process (undefined: none made yet). */
let fixed: string | undefined;

/**
 * Makes an impit client (`make`, synchronous) trusting the public roots and `ca`: the
 * roots and the CAs are written to one file, named by SSL_CERT_FILE only while the first
 * client is made, and removed after (it is read then).
 */
export function withImpitTrust<T>(ca: readonly string[], make: () => T): T {
  const key = ca.join('\n');
  if (fixed !== undefined) {
    if (fixed !== key)
      throw new UserscoutError(
        'transport_unavailable',
        'the impersonate transport trusts one set of extra CAs per process (impit loads its trust store once): this engine names another --ca-file than the first one made here',
      );
    return make();
  }
  if (ca.length === 0) {
    const made = make();
    fixed = key;
    return made;
  }
  const file = join(tmpdir(), `userscout-roots-${process.pid}.pem`);
  writeFileSync(file, [...rootCertificates, ...ca].join('\n'), { mode: 0o600 });
  const before = process.env.SSL_CERT_FILE;
  process.env.SSL_CERT_FILE = file;
  try {
    const made = make();
    fixed = key;
    return made;
  } finally {
    if (before === undefined) delete process.env.SSL_CERT_FILE;
    else process.env.SSL_CERT_FILE = before;
    rmSync(file, { force: true });
  }
}
