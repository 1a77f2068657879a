/**
 * The names of a batch, from what a person pasted or a CSV file they chose:
 * one name a line, or several separated by commas, semicolons or tabs; from a
 * CSV file, the first column of each row, a header row (`username`, `name`)
 * left out. Quotes around a name are taken off; each name once, in the order
 * first seen. Pure.
 */

const HEADERS = new Set(['username', 'usernames', 'name', 'names', 'user', 'handle', 'account']);

/** The cells of one CSV line (RFC 4180 quoting), for a line with no line break inside quotes. */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch !== '"') cell += ch;
      else if (line[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',' || ch === ';' || ch === '\t') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

function distinct(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of names) {
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    out.push(name);
  }
  return out;
}

/** Names from pasted text: every cell of every line. */
export function namesFromText(text: string): string[] {
  return distinct(text.split(/\r?\n/).flatMap((line) => csvCells(line)));
}

/** Names from a CSV file: the first cell of each row, without a header row. */
export function namesFromCsv(text: string): string[] {
  const rows = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => csvCells(line)[0] ?? '');
  if (rows.length > 0 && HEADERS.has(rows[0]!.toLowerCase())) rows.shift();
  return distinct(rows);
}
