/**
 * Progress figures shown while a search runs: percent, elapsed time and the
 * time left. Pure functions; the clock is passed in.
 */

export interface ProgressCounts {
  readonly checked: number;
  readonly total: number;
  readonly hits: number;
}

export interface ProgressView {
  readonly percent: number;
  readonly elapsedSeconds: number;
  /** Undefined when finished or when nothing allows a guess yet. */
  readonly remainingSeconds: number | undefined;
}

export function progressView(input: {
  readonly progress: ProgressCounts;
  readonly startedAt: number;
  readonly now: number;
  /** The service's estimate of the whole search, in seconds. */
  readonly estimatedSeconds: number;
  readonly finishedAt?: number;
}): ProgressView {
  const { progress } = input;
  const total = Math.max(0, progress.total);
  const checked = Math.min(Math.max(0, progress.checked), total);
  const done = input.finishedAt !== undefined;
  const percent = done ? 100 : total === 0 ? 0 : Math.floor((checked / total) * 100);
  const end = input.finishedAt ?? input.now;
  const elapsedMs = Math.max(0, end - input.startedAt);
  const elapsedSeconds = Math.floor(elapsedMs / 1000);
  if (done) return { percent, elapsedSeconds, remainingSeconds: undefined };
  // Once a tenth is checked, the pace so far is a better guide than the estimate made at the start.
  let remaining: number;
  if (checked > 0 && checked >= total / 10) {
    remaining = ((elapsedMs / checked) * (total - checked)) / 1000;
  } else {
    remaining = input.estimatedSeconds - elapsedMs / 1000;
  }
  return { percent, elapsedSeconds, remainingSeconds: Math.max(0, Math.ceil(remaining)) };
}

/** 0 s, 42 s, 3 min 05 s, 1 h 02 min. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
