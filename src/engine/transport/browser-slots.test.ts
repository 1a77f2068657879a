import { describe, expect, it } from 'vitest';
import { ProcessBrowserSlots, takeSlot } from './browser-slots.js';
import { TransportTally } from './transport-tally.js';

describe('browser slots', () => {
  it('waits for a slot freed by another holder, and tells once that it waited', async () => {
    const tally = new TransportTally();
    const slots = new ProcessBrowserSlots(tally, 1);
    const first = await takeSlot(slots, 0, new AbortController().signal);
    expect(first).toBeTypeOf('function');
    let waits = 0;
    const second = takeSlot(slots, 0, new AbortController().signal, () => waits++);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(tally.contexts).toBe(1);
    first!();
    first!();
    const got = await second;
    expect(got).toBeTypeOf('function');
    expect(waits).toBe(1);
    expect(tally.contexts).toBe(1);
    got!();
    expect(tally.contexts).toBe(0);
  });

  it('gives up when its signal aborts, holding nothing', async () => {
    const tally = new TransportTally();
    const slots = new ProcessBrowserSlots(tally, 1);
    const held = await takeSlot(slots, 0, new AbortController().signal);
    const started = Date.now();
    const none = await takeSlot(slots, 0, AbortSignal.timeout(300));
    expect(none).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(tally.contexts).toBe(1);
    held!();
    expect(tally.contexts).toBe(0);
  });
});
