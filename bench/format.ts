/**
 * Text tables of a run and of the comparison between two runs. Pure.
 */
import type { BenchResults, CaseResult, Column } from './results.js';

export function textTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatValue(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const mark = (met: boolean | null) => (met === null ? '?' : met ? 'ok' : 'MISSED');

export function formatCase(result: CaseResult): string {
  const table = textTable(
    ['', ...result.columns.map((c) => c.title)],
    result.rows.map((row) => [
      row.label,
      ...result.columns.map((c) => formatValue(row.values[c.key], c.digits)),
    ]),
  );
  const targets = result.targets.map((t) => `  target: ${t.text} -> ${mark(t.met)}`);
  const notes = result.notes.map((n) => `  note: ${n}`);
  return [`Case ${result.id}: ${result.title}`, table, ...targets, ...notes].join('\n');
}

export function formatRun(results: BenchResults): string {
  const m = results.machine;
  const header = `userscout benchmark ${results.date} commit ${results.commit}${results.quick ? ' (quick)' : ''}: ${m.cores} x ${m.cpu}, ${m.memoryGb} GB, Node ${m.node}, load ${m.loadAtStart} at start, ${results.durationS} s`;
  return [header, ...results.cases.map(formatCase)].join('\n\n');
}

interface Figure {
  readonly value: number;
  readonly column: Column;
}

function figures(results: BenchResults): Map<string, Figure> {
  const out = new Map<string, Figure>();
  for (const c of results.cases)
    for (const row of c.rows)
      for (const column of c.columns) {
        const value = row.values[column.key];
        if (typeof value === 'number' && !Number.isNaN(value))
          out.set(`${c.id} | ${row.label} | ${column.title}`, { value, column });
      }
  return out;
}

/** The relative change of a figure and whether it is an improvement. */
export function change(before: number, after: number, better: Column['better']): string {
  if (before === after) return '=';
  const pct = before === 0 ? Number.POSITIVE_INFINITY : ((after - before) / Math.abs(before)) * 100;
  const text = Number.isFinite(pct) ? `${pct > 0 ? '+' : ''}${pct.toFixed(1)}%` : 'new';
  if (better === 'none') return text;
  const improved = better === 'lower' ? after < before : after > before;
  return `${text} ${improved ? 'better' : 'worse'}`;
}

/** Every figure of `after` next to the same figure of `before` ('-' where one run lacks it). */
export function formatComparison(before: BenchResults, after: BenchResults): string {
  const old = figures(before);
  const now = figures(after);
  const keys = [...new Set([...now.keys(), ...old.keys()])];
  const rows = keys.map((key) => {
    const a = old.get(key);
    const b = now.get(key);
    const digits = (b ?? a)!.column.digits ?? 0;
    return [
      key,
      formatValue(a?.value, digits),
      formatValue(b?.value, digits),
      a && b ? change(a.value, b.value, b.column.better) : '-',
    ];
  });
  return [
    `comparing ${before.date} ${before.commit} (before) with ${after.date} ${after.commit} (after)`,
    textTable(['case | row | figure', 'before', 'after', 'change'], rows),
  ].join('\n');
}
