/**
 * At most `limit` connections being opened (TCP + TLS handshake) at once; the
 * others wait their turn, first come first served. Hundreds of handshakes begun
 * together on a CPU that can finish a few at a time all hold their TLS state and
 * buffers meanwhile, so the peak memory of a cold search is set by how many are
 * begun at once, not by how many the CPU can complete.
 */
export class ConnectGate {
  readonly #limit: number;
  #open = 0;
  readonly #waiting: ((done: () => void) => void)[] = [];
  #head = 0;
  #pumping = false;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`connect gate limit must be >= 1, got ${limit}`);
    this.#limit = limit;
  }

  /** Connections being opened now. */
  get open(): number {
    return this.#open;
  }

  /** Connections waiting to begin. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Runs `start` once a turn is free; `start` calls its `done` exactly once, when the connection is open or failed. */
  run(start: (done: () => void) => void): void {
    this.#waiting.push(start);
    this.#pump();
  }

  /** Begins waiting connections while turns are free: a loop, as a connection may fail (and free its turn) at once. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#open < this.#limit && this.#head < this.#waiting.length) {
        const start = this.#waiting[this.#head]!;
        this.#waiting[this.#head++] = undefined as never;
        this.#open++;
        let released = false;
        start(() => {
          if (released) return;
          released = true;
          this.#open--;
          this.#pump();
        });
      }
      if (this.#head === this.#waiting.length) {
        this.#waiting.length = 0;
        this.#head = 0;
      }
    } finally {
      this.#pumping = false;
    }
  }
}
