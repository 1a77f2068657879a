import { describe, expect, it } from 'vitest';
import { LocalEventHub, type SearchEvent } from '../runner/events.js';
import { type EventBatch, EventFanout, encodeSearchEvent, eventBatch } from './event-fanout.js';

const progress = { checked: 1, total: 2, hits: 0, answered: 1, unknown: 0, errors: 0, invalid: 0 };
const result = (seq: number): SearchEvent => ({
  type: 'result',
  seq,
  outcome: { platform: `P${seq}` } as never,
  progress,
});

describe('EventFanout', () => {
  it('encodes each event once and hands every stream the same bytes, in one batch per flush', async () => {
    const hub = new LocalEventHub();
    const fanout = new EventFanout(hub, 5);
    const got: EventBatch[][] = [[], []];
    const stops = got.map((batches) => fanout.subscribe('s', (b) => batches.push(b)));
    hub.publish('s', result(1));
    hub.publish('s', result(2));
    await new Promise((r) => setTimeout(r, 30));
    expect(got[0]).toHaveLength(1);
    expect(got[0]![0]).toBe(got[1]![0]);
    const batch = got[0]![0]!;
    expect([batch.firstSeq, batch.lastSeq, batch.done]).toEqual([1, 2, false]);
    expect(batch.bytes.toString()).toBe(
      encodeSearchEvent(result(1)).toString() + encodeSearchEvent(result(2)).toString(),
    );
    expect(batch.bytes.toString()).toMatch(
      /^id: 1\nevent: result\ndata: \{"platform":"P1"\}\n\nevent: progress\n/,
    );
    for (const stop of stops) stop();
    hub.publish('s', result(3));
    await new Promise((r) => setTimeout(r, 30));
    expect(got[0]).toHaveLength(1);
  });

  it('marks a batch that ends the search', () => {
    const done: SearchEvent = { type: 'done', state: 'completed', progress };
    const batch = eventBatch([{ event: done, bytes: encodeSearchEvent(done) }]);
    expect(batch.done).toBe(true);
    expect(batch.firstSeq).toBe(Number.POSITIVE_INFINITY);
    expect(batch.bytes.toString()).toMatch(/event: done\ndata: \{"status":"completed"\}\n\n$/);
  });
});
