/**
 * Where the search threads of one process find its Chromium processes, in memory
 * they share: each place holds no browser, one being launched by a thread, or one
 * up at an endpoint every thread connects to. So the process's cap on browsers
 * (USERSCOUT_BROWSERS) holds over all its threads: the first thread that needs a
 * place's browser launches it (its owner) and the others connect to it.
 *
 * A place's state and generation are one word, changed by compare-and-swap: a
 * browser that dies or hangs is released by whichever thread sees it first, and
 * a release naming an older generation changes nothing, so a browser is replaced
 * (and counted as replaced) once however many threads saw it go.
 */

const EMPTY = 0;
const LAUNCHING = 1;
const UP = 2;
/**
 * Cells of a place: its word (generation × 4 + state), the browser's pid, its endpoint's length,
 * and the contexts the threads have open there (whichever browser holds the place).
 */
const WORD = 0;
const PID = 1;
const LENGTH = 2;
const OPEN = 3;
const CELLS = 4;
/** Room for a playwright server's endpoint (ws://127.0.0.1:port/ and a 32-character id). */
const ENDPOINT_BYTES = 256;
const PLACE_BYTES = CELLS * Int32Array.BYTES_PER_ELEMENT + ENDPOINT_BYTES;

export type BrowserPlace =
  | { readonly state: 'empty'; readonly generation: number }
  | { readonly state: 'launching'; readonly generation: number }
  | { readonly state: 'up'; readonly generation: number; readonly endpoint: string; readonly pid: number };

export class BrowserDirectory {
  /** A buffer for `places` browsers, for the threads to share. */
  static createBuffer(places: number): SharedArrayBuffer {
    if (!Number.isInteger(places) || places < 1)
      throw new RangeError(`a browser directory needs >= 1 place, got ${places}`);
    return new SharedArrayBuffer(places * PLACE_BYTES);
  }

  readonly buffer: SharedArrayBuffer;
  readonly places: number;

  constructor(buffer: SharedArrayBuffer) {
    if (buffer.byteLength === 0 || buffer.byteLength % PLACE_BYTES !== 0)
      throw new RangeError(
        `a browser directory's buffer holds places of ${PLACE_BYTES} bytes (got ${buffer.byteLength})`,
      );
    this.buffer = buffer;
    this.places = buffer.byteLength / PLACE_BYTES;
  }

  #cells(place: number): Int32Array {
    if (!Number.isInteger(place) || place < 0 || place >= this.places)
      throw new RangeError(`no browser place ${place} (of ${this.places})`);
    return new Int32Array(this.buffer, place * PLACE_BYTES, CELLS);
  }

  #bytes(place: number): Uint8Array {
    return new Uint8Array(
      this.buffer,
      place * PLACE_BYTES + CELLS * Int32Array.BYTES_PER_ELEMENT,
      ENDPOINT_BYTES,
    );
  }

  read(place: number): BrowserPlace {
    const cells = this.#cells(place);
    const word = Atomics.load(cells, WORD);
    const generation = word >>> 2;
    const state = word & 3;
    if (state === EMPTY) return { state: 'empty', generation };
    if (state === LAUNCHING) return { state: 'launching', generation };
    // The endpoint was written before the word said up (Atomics.store orders the writes before it).
    const length = Atomics.load(cells, LENGTH);
    const endpoint = new TextDecoder().decode(this.#bytes(place).slice(0, length));
    const pid = Atomics.load(cells, PID);
    // Read again: a release meanwhile makes what was read stale.
    if (Atomics.load(cells, WORD) !== word) return this.read(place);
    return { state: 'up', generation, endpoint, pid };
  }

  /** The place's generation: it moves on each time its browser is released. */
  generation(place: number): number {
    return Atomics.load(this.#cells(place), WORD) >>> 2;
  }

  /** Contexts the process's threads have open at `place`. */
  open(place: number): number {
    return Atomics.load(this.#cells(place), OPEN);
  }

  /** Counts a context opened (`delta` 1) or closed (-1) at `place`. */
  adjustOpen(place: number, delta: 1 | -1): void {
    Atomics.add(this.#cells(place), OPEN, delta);
  }

  /** Claims an empty place for this thread to launch its browser: its generation, or undefined when taken. */
  claim(place: number): number | undefined {
    const cells = this.#cells(place);
    const word = Atomics.load(cells, WORD);
    if ((word & 3) !== EMPTY) return undefined;
    const generation = word >>> 2;
    return Atomics.compareExchange(cells, WORD, word, (generation << 2) | LAUNCHING) === word
      ? generation
      : undefined;
  }

  /** Says the claimed place's browser is up at `endpoint`; false when it was released meanwhile. */
  publish(place: number, generation: number, endpoint: string, pid: number): boolean {
    const encoded = new TextEncoder().encode(endpoint);
    if (encoded.length > ENDPOINT_BYTES)
      throw new RangeError(`a browser endpoint longer than ${ENDPOINT_BYTES} bytes: ${endpoint}`);
    const cells = this.#cells(place);
    const launching = (generation << 2) | LAUNCHING;
    if (Atomics.load(cells, WORD) !== launching) return false;
    this.#bytes(place).set(encoded);
    Atomics.store(cells, LENGTH, encoded.length);
    Atomics.store(cells, PID, pid);
    return Atomics.compareExchange(cells, WORD, launching, (generation << 2) | UP) === launching;
  }

  /**
   * Empties the place if it still holds `generation` (launching or up): true when this call
   * emptied it, false when another thread already had (or a newer browser is there).
   */
  release(place: number, generation: number): boolean {
    const cells = this.#cells(place);
    const next = ((generation + 1) << 2) | EMPTY;
    for (const state of [LAUNCHING, UP]) {
      const word = (generation << 2) | state;
      if (Atomics.compareExchange(cells, WORD, word, next) === word) return true;
    }
    return false;
  }
}
