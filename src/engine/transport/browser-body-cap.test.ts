import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BROWSER_SUBRESOURCE_CAP_FACTOR } from '../../tuning.js';
import { BodyCapWatch, type CapSession } from './browser-body-cap.js';

/** A DevTools session that delivers the events a test emits and records the commands sent. */
function fakeSession() {
  const events = new EventEmitter();
  const sent: string[] = [];
  const session = {
    on: (name: string, listener: (event: unknown) => void) => events.on(name, listener),
    off: (name: string, listener: (event: unknown) => void) => events.off(name, listener),
    send: (method: string) => {
      sent.push(method);
      return Promise.resolve({});
    },
  } as unknown as CapSession;
  const response = (requestId: string, type: string) =>
    events.emit('Network.responseReceived', { requestId, type });
  const data = (requestId: string, dataLength: number) =>
    events.emit('Network.dataReceived', { requestId, dataLength });
  return { session, sent, response, data, listeners: () => events.eventNames().length };
}

const CAP = 1000;

describe('the body cap in the browser', () => {
  it('stops the page once one document passes the cap, counted answer by answer', async () => {
    const { session, sent, response, data } = fakeSession();
    const watch = new BodyCapWatch(session, CAP);
    response('doc', 'Document');
    response('frame', 'Document');
    data('doc', 600);
    data('frame', 600);
    expect(watch.passed).toBe(false);
    data('doc', 401);
    expect(watch.passed).toBe(true);
    await watch.stopped;
    expect(sent).toEqual(['Page.stopLoading']);
    // Stopped once: later bytes change nothing.
    data('doc', 5000);
    expect(sent).toEqual(['Page.stopLoading']);
  });

  it("lets a page's subresources read more than one answer's cap together, then stops it", () => {
    const { session, sent, response, data } = fakeSession();
    const watch = new BodyCapWatch(session, CAP);
    response('bundle', 'Script');
    response('data', 'XHR');
    // A single-page site's bundle past one answer's cap still runs.
    data('bundle', CAP * 3);
    expect(watch.passed).toBe(false);
    data('data', CAP * (BROWSER_SUBRESOURCE_CAP_FACTOR - 3));
    expect(watch.passed).toBe(false);
    data('bundle', 1);
    expect(watch.passed).toBe(true);
    expect(sent).toEqual(['Page.stopLoading']);
  });

  it('counts an answer of no known kind as a document, the stricter cap', () => {
    const { session, data } = fakeSession();
    const watch = new BodyCapWatch(session, CAP);
    data('unknown', CAP + 1);
    expect(watch.passed).toBe(true);
  });

  it('stops listening when the check ends', () => {
    const fake = fakeSession();
    const watch = new BodyCapWatch(fake.session, CAP);
    expect(fake.listeners()).toBe(2);
    watch.end();
    expect(fake.listeners()).toBe(0);
  });
});
