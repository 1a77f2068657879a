/**
 * One webhook attempt against a loopback receiver: signed, classified, bounded
 * by its timeout, refused when its destination is private, and connected to
 * the address it checked, resolving the name once per attempt.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
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

  it('refuses a private destination', async () => {
    receiver.received.length = 0;
    const literal = await sendWebhook(delivery(receiver.url), { ...options, allowPrivate: false });
    expect(literal.error).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
    const named = await sendWebhook(delivery(`http://hooks.test:${new URL(receiver.url).port}/hook`), {
      ...options,
      allowPrivate: false,
      resolve: async () => ['93.184.216.34', '10.0.0.7'],
    });
    expect(named.error).toMatch(/private or loopback address \(10\.0\.0\.7\)/);
    expect(receiver.received).toEqual([]);
  });

  it('resolves once per attempt and connects to the address it checked, never to a later answer (DNS rebinding)', async () => {
    receiver.received.length = 0;
    // The receiver's name answers a public address first, then its private (loopback) one.
    const answers = ['93.184.216.34', '127.0.0.1'];
    let asked = 0;
    const resolve = async () => [answers[Math.min(asked++, answers.length - 1)]!];
    // Where each outbound connection was going; one to anywhere but loopback is ended before it
    // connects (destroyed on its lookup), so no test traffic leaves the machine.
    const connecting: string[] = [];
    const onSocket = (message: unknown) => {
      const { socket } = message as { socket: Socket };
      socket.on('lookup', (error: Error | null, address: string) => {
        if (error) return;
        connecting.push(address);
        if (address !== '127.0.0.1') socket.destroy(new Error('kept off the network by the test'));
      });
    };
    subscribe('net.client.socket', onSocket);
    try {
      const url = `http://rebinding.test:${new URL(receiver.url).port}/hook`;
      const first = await sendWebhook(delivery(url), { ...options, allowPrivate: false, resolve });
      expect(asked).toBe(1);
      expect(connecting).toEqual(['93.184.216.34']);
      expect(first.status).toBeUndefined();
      expect(first.error).toBe('kept off the network by the test');
      // The next attempt resolves again, and its answer is checked again.
      const second = await sendWebhook(delivery(url), { ...options, allowPrivate: false, resolve });
      expect(asked).toBe(2);
      expect(second.error).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
      expect(connecting).toEqual(['93.184.216.34']);
      expect(receiver.received).toEqual([]);
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
  });
});
