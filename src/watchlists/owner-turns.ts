/**
 * One change at a time per owner: a key's limits are read and its watchlists
 * written in one turn, so two requests at once cannot both fit under a cap
 * that only one of them fits under. Per process: across API processes a key
 * can pass a cap by at most one watchlist per process.
 */
export class OwnerTurns {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier turn of `owner` has ended (failed or not). */
  run<T>(owner: string, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(owner) ?? Promise.resolve();
    const turn = before.then(work, work);
    const tail = turn.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(owner, tail);
    // The map forgets an owner once its last turn has ended.
    void tail.then(() => {
      if (this.#tails.get(owner) === tail) this.#tails.delete(owner);
    });
    return turn;
  }

  /** Owners with a turn under way or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
