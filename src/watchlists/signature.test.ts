import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader, verifySignature } from './signature.js';

describe('webhook signature', () => {
  const secret = 'whsec_test_secret_0123456789';
  const body = '{"id":"evt_1","type":"watchlist.changes"}';

  it('is HMAC-SHA256 over timestamp, a dot and the raw body', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies with the secret, and refuses another secret, another body or an old timestamp', () => {
    const header = signatureHeader(secret, 1700000000, body);
    expect(verifySignature(secret, header, body, 1700000010)).toBe(true);
    expect(verifySignature('whsec_other', header, body, 1700000010)).toBe(false);
    expect(verifySignature(secret, header, `${body} `, 1700000010)).toBe(false);
    expect(verifySignature(secret, header, body, 1700000000 + 301)).toBe(false);
    expect(verifySignature(secret, 'garbage', body, 1700000000)).toBe(false);
  });

  it('generates distinct secrets', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
