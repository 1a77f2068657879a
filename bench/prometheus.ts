/**
 * Reading the Prometheus text a process serves at /metrics: the sum of one
 * metric's samples whose labels include the ones given. Pure.
 */

/** The USERSCOUT_METRICS_TOKEN the benchmark's servers are started with, and the headers a scrape sends. */
export const METRICS_TOKEN = 'bench-metrics-token';
export const METRICS_HEADERS = { authorization: `Bearer ${METRICS_TOKEN}` };

/** Labels of one sample line (`name{a="x",b="y"} value`), unescaped. */
function labelsOf(text: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
    labels.set(
      match[1]!,
      match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)),
    );
  return labels;
}

/** A sample line: its metric name, its labels, its value. */
const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;

/** The sum of `name`'s samples carrying every label of `where` (all of them when empty). */
export function metricSum(text: string, name: string, where: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = SAMPLE.exec(line);
    if (!sample || sample[1] !== name) continue;
    const labels = labelsOf(sample[2] ?? '');
    if (Object.entries(where).some(([k, v]) => labels.get(k) !== v)) continue;
    const value = Number(sample[3]);
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}
