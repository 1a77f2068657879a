/**
 * The controls searches count against their sites' budgets before they start, held by the
 * scheduler's admission (scheduler.ts). A check may send its platform's control alongside
 * it (eager controls: due once a window per platform and identity,
 * src/engine/controls/control-guard.ts), a request of the same budget. Searches started
 * together would each find every control due, so each due control is counted by one
 * search only: a platform is counted by as many searches as the identities its control is
 * due through, one control each (a search's one check of the platform sends at most one),
 * until that search's check ends. Keyed by platform id. Pure.
 */
export class ControlCount {
  /** Searches counting each platform's control, whose check of it has not ended. */
  readonly #by = new Map<string, number>();

  /**
   * The platforms whose control a search counts, each counted until `release`: those of
   * `due` (platform id → identities its control is due through) not all counted already.
   */
  count(due: Iterable<readonly [string, number]>): string[] {
    const counted: string[] = [];
    for (const [platform, identities] of due) {
      const by = this.#by.get(platform) ?? 0;
      if (by >= identities) continue;
      this.#by.set(platform, by + 1);
      counted.push(platform);
    }
    return counted;
  }

  /** One search's count of `platform` ended: its check ended, or the search did. */
  release(platform: string): void {
    const by = (this.#by.get(platform) ?? 0) - 1;
    if (by > 0) this.#by.set(platform, by);
    else this.#by.delete(platform);
  }

  /** Searches counting `platform`'s control now. */
  countedBy(platform: string): number {
    return this.#by.get(platform) ?? 0;
  }
}
