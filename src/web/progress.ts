/**
 * Progress figures shown while a search runs: percent, elapsed time and the
 * time left, from the pace of the running search blended with the service's
 * estimate made at the start. Pure functions; the clock is passed in.
 */

export interface ProgressCounts {
  readonly checked: number;
  readonly total: number;
  readonly hits: number;
  /** Platforms that answered hit or miss (absent from services before it was added). */
  readonly answered?: number;
  readonly unknown?: number;
  readonly errors?: number;
  readonly invalid?: number;
}

/** How many platforms were checked at a moment (ms epoch): the page keeps a few of these. */
export interface ProgressSample {
  readonly at: number;
  readonly checked: number;
}

export interface ProgressView {
  readonly percent: number;
  readonly elapsedSeconds: number;
  /** Undefined when finished, or when nothing allows a guess (then `remainingText` says so). */
  readonly remainingSeconds: number | undefined;
  /** `done`, `about 12 s`, `almost done` or `estimating…`; never `about 0 s` while running. */
  readonly remainingText: string;
}

/**
 * The pace is measured over the last PACE_WINDOW_MS: most platforms answer in the
 * first second and the slowest ones last, so the average since the start would
 * promise an end long before it comes.
 */
const PACE_WINDOW_MS = 5000;

/** Checked at `at`, read off the samples (the search starts at 0 checked); linear between two samples. */
function checkedAt(samples: readonly ProgressSample[], at: number): number {
  let before: ProgressSample | undefined;
  let after: ProgressSample | undefined;
  for (const s of samples) {
    if (s.at <= at && (before === undefined || s.at >= before.at)) before = s;
    if (s.at > at && (after === undefined || s.at < after.at)) after = s;
  }
  if (before === undefined) return 0;
  if (after === undefined || after.at === before.at) return before.checked;
  return before.checked + ((after.checked - before.checked) * (at - before.at)) / (after.at - before.at);
}

/** Platforms checked per millisecond over the last window; undefined when none was checked in it. */
function recentPace(
  samples: readonly ProgressSample[],
  startedAt: number,
  now: number,
  checked: number,
): number | undefined {
  const from = Math.max(startedAt, now - PACE_WINDOW_MS);
  const span = now - from;
  if (span <= 0) return undefined;
  const all = [{ at: startedAt, checked: 0 }, ...samples, { at: now, checked }];
  const progressed = checked - checkedAt(all, from);
  return progressed > 0 ? progressed / span : undefined;
}

export function progressView(input: {
  readonly progress: ProgressCounts;
  readonly startedAt: number;
  readonly now: number;
  /** The service's estimate of the whole search, in seconds. */
  readonly estimatedSeconds: number;
  readonly finishedAt?: number;
  /** Earlier readings of this search's progress, for the pace; without them the average since the start. */
  readonly samples?: readonly ProgressSample[];
}): ProgressView {
  const { progress } = input;
  const total = Math.max(0, progress.total);
  const checked = Math.min(Math.max(0, progress.checked), total);
  const done = input.finishedAt !== undefined;
  const percent = done ? 100 : total === 0 ? 0 : Math.floor((checked / total) * 100);
  const end = input.finishedAt ?? input.now;
  const elapsedMs = Math.max(0, end - input.startedAt);
  const elapsedSeconds = Math.floor(elapsedMs / 1000);
  if (done) return { percent, elapsedSeconds, remainingSeconds: undefined, remainingText: 'done' };

  const estimatedMs = Math.max(0, input.estimatedSeconds * 1000);
  const byEstimate = estimatedMs - elapsedMs;
  const recent = recentPace(input.samples ?? [], input.startedAt, input.now, checked);
  const average = checked > 0 && elapsedMs > 0 ? checked / elapsedMs : undefined;
  // Within the estimate, which already allows for the slow tail, the pace only corrects a search
  // that runs slower as a whole: a lull while the slowest platforms are awaited must not blow it up.
  const pace = byEstimate > 0 && average !== undefined ? Math.max(average, recent ?? 0) : recent;
  const byPace = pace === undefined ? undefined : (total - checked) / pace;
  let remainingMs: number | undefined;
  if (byEstimate > 0) {
    // The further into the estimated time, the more the search's own pace counts.
    const weight = byPace === undefined || estimatedMs === 0 ? 0 : Math.min(1, elapsedMs / estimatedMs);
    remainingMs = weight * (byPace ?? 0) + (1 - weight) * byEstimate;
  } else {
    // The estimate has passed: only the pace can tell.
    remainingMs = byPace;
  }
  if (remainingMs === undefined) {
    // Nothing checked lately and the estimate spent: the last, slowest platforms are being waited for.
    const text = total > 0 && checked / total >= 0.9 ? 'almost done' : 'estimating…';
    return { percent, elapsedSeconds, remainingSeconds: undefined, remainingText: text };
  }
  const remainingSeconds = Math.ceil(remainingMs / 1000);
  if (remainingMs < 1000) return { percent, elapsedSeconds, remainingSeconds, remainingText: 'almost done' };
  return {
    percent,
    elapsedSeconds,
    remainingSeconds,
    remainingText: `about ${formatDuration(remainingSeconds)}`,
  };
}

/** Keeps the samples of the last minute, plus the new one: enough for the pace, bounded. */
export function addSample(samples: readonly ProgressSample[], sample: ProgressSample): ProgressSample[] {
  return [...samples.filter((s) => s.at >= sample.at - 60_000 && s.at <= sample.at), sample];
}

/** 0 s, 42 s, 3 min 05 s, 1 h 02 min. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
