/**
 * Counters in memory that threads share: 64-bit cells over a SharedArrayBuffer, each added to
 * with Atomics so that no thread's add is lost. The tallies lay their cells out over it
 * (engine/transport/transport-tally.ts, runner/outcome-tally.ts).
 */

/** A buffer for `cells` counters, to hand to every thread that shares them. */
export function sharedCellsBuffer(cells: number): SharedArrayBuffer {
  return new SharedArrayBuffer(cells * BigInt64Array.BYTES_PER_ELEMENT);
}

/** The first `cells` counters of `buffer`; a buffer too small for `what` is refused. */
export function sharedCells(buffer: SharedArrayBuffer, cells: number, what: string): BigInt64Array {
  if (buffer.byteLength < cells * BigInt64Array.BYTES_PER_ELEMENT)
    throw new RangeError(
      `${what} needs ${cells * BigInt64Array.BYTES_PER_ELEMENT} bytes (got ${buffer.byteLength})`,
    );
  return new BigInt64Array(buffer, 0, cells);
}
