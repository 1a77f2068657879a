/**
 * One webhook attempt against a loopback receiver: signed, classified, bounded
 * by its timeout, and refused at connect time when the name resolves to a
 * private address there, whatever it resolved to when it was checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/watchlists.js';
import { sendWebhook } from '../../src/watchlists/send-webhook.js';
import { verifySignature } from '../../src/watchlists/signature.js';
import { Receiver } from './support.js';

const receiver = new Receiver();
const secret = 'whsec_send_webhook_test';

beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

const delivery = (url: string): DeliveryRecord => ({
  id: 'd1',
  watchlistId: 'w1',
  eventId: 'evt_1',
  eventType: 'watchlist.changes',
  body: '{"id":"evt_1","changes":[]}',
  url,
  state: 'pending',
  createdAt: Date.now(),
  attempts: [],
});

const options = { secret, timeoutMs: 2_000, allowPrivate: true, now: Date.now };

describe('sendWebhook', () => {
  it('POSTs the raw body, signed, with the event headers', async () => {
    receiver.received.length = 0;
    const attempt = await sendWebhook(delivery(receiver.url), options);
    expect(attempt).toMatchObject({ status: 200 });
    expect(attempt.error).toBeUndefined();
    const [got] = receiver.received;
    expect(got!.body).toBe('{"id":"evt_1","changes":[]}');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-userscout-event-id']).toBe('evt_1');
    expect(
      verifySignature(
        secret,
        String(got!.headers['x-userscout-signature']),
        got!.body,
        (Date.now() / 1000) | 0,
      ),
    ).toBe(true);
  });

  it("records a receiver's failure and a receiver that does not answer in time", async () => {
    receiver.statuses.push(500);
    expect(await sendWebhook(delivery(receiver.url), options)).toMatchObject({
      status: 500,
      error: 'HTTP 500: receiver failed',
    });
    receiver.hold = true;
    try {
      const attempt = await sendWebhook(delivery(receiver.url), { ...options, timeoutMs: 200 });
      expect(attempt.status).toBeUndefined();
      expect(attempt.error).toBe('no answer within 200 ms');
    } finally {
      receiver.release();
    }
  });

  it('ends at once when its signal aborts (the service stopping)', async () => {
    receiver.hold = true;
    const controller = new AbortController();
    try {
      const pending = sendWebhook(delivery(receiver.url), {
        ...options,
        timeoutMs: 10_000,
        signal: controller.signal,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      expect(await pending).toMatchObject({ error: 'aborted before an answer came' });
    } finally {
      receiver.release();
    }
  });

  it('refuses a private destination, checked before sending and again when connecting', async () => {
    receiver.received.length = 0;
    const literal = await sendWebhook(delivery(receiver.url), { ...options, allowPrivate: false });
    expect(literal.error).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
    // The name looked public when checked, but connects to loopback: refused all the same.
    const port = new URL(receiver.url).port;
    const rebound = await sendWebhook(delivery(`http://localhost:${port}/hook`), {
      ...options,
      allowPrivate: false,
      resolve: async () => ['93.184.216.34'],
    });
    expect(rebound.status).toBeUndefined();
    expect(rebound.error).toMatch(/private or loopback/);
    expect(receiver.received).toEqual([]);
  });
});
