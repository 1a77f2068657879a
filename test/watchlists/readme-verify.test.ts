/**
 * The few lines of Node that docs/watchlists.md gives to verify a webhook signature
 * are run here, as written, against a signature the service makes: the docs cannot drift.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/watchlists/signature.js';

const guide = readFileSync(new URL('../../docs/watchlists.md', import.meta.url), 'utf8');

describe("the watchlist guide's signature check", () => {
  it('accepts what the service signs, and refuses another secret, body or an old timestamp', async () => {
    const snippet = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(guide)?.[1];
    expect(snippet).toBeDefined();
    const source = `${snippet}\nexport { verify };\n`;
    const { verify } = (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as {
      verify: (secret: string, header: string, body: string) => boolean;
    };
    const secret = 'whsec_readme_test_secret';
    const body = '{"id":"evt_1","type":"watchlist.changes","changes":[]}';
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secret, now, body);
    expect(verify(secret, header, body)).toBe(true);
    expect(verify('whsec_other', header, body)).toBe(false);
    expect(verify(secret, header, `${body}\n`)).toBe(false);
    expect(verify(secret, signatureHeader(secret, now - 3600, body), body)).toBe(false);
  });
});
