import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { TransportTally } from './transport-tally.js';

describe('transport tally', () => {
  it('counts, and caps the contexts open, over one buffer shared by several tallies', () => {
    const one = new TransportTally();
    const other = new TransportTally(one.buffer);
    one.add('launches');
    other.add('escalations', 3);
    expect(one.tryOpenContext(2)).toBe(true);
    expect(other.tryOpenContext(2)).toBe(true);
    // The cap counts what both opened.
    expect(one.tryOpenContext(2)).toBe(false);
    other.adjustPages(1);
    expect(one.read()).toMatchObject({ launches: 1, escalations: 3, contexts: 2, pages: 1, hangs: 0 });
    other.closeContext();
    other.adjustPages(-1);
    expect(one.tryOpenContext(2)).toBe(true);
    expect(other.read()).toMatchObject({ contexts: 2, pages: 0 });
  });

  it('is shared with another thread through its buffer', async () => {
    const tally = new TransportTally();
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const cells = new BigInt64Array(workerData);
       Atomics.add(cells, 1, 5n);
       parentPort.postMessage('done');`,
      { eval: true, workerData: tally.buffer },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    // Cell 1 is `launches`: the other thread's count is read here.
    expect(tally.read().launches).toBe(5);
  });

  it('refuses a buffer too small for its cells', () => {
    expect(() => new TransportTally(new SharedArrayBuffer(8))).toThrow(/needs \d+ bytes/);
  });
});
