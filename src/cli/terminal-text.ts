/**
 * Site text made safe to print: what a site wrote (a snippet of its page, a
 * profile field, a name) must not drive the terminal it is printed on (escape
 * sequences, C1 controls) or reorder what is shown around it (bidi controls).
 * Pure; the one place the command line's outputs are cleaned.
 */

/** C0 controls but tab and line feed, DEL, C1 controls, and the bidi controls (marks, embeddings, overrides, isolates). */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The same characters, and tab and line feed, which break a table row or a one-line message. */
const UNSAFE_IN_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text with the controls removed; tabs and line feeds kept. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, '');
}

/** Text for one line (a table cell, a heading): controls removed, tabs and line feeds as spaces. */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, (c) => (c === '\t' || c === '\n' ? ' ' : ''));
}

/** CSV text: as `terminalText`, keeping the CRLF that ends each record (and no lone CR). */
export function terminalCsv(text: string): string {
  return text.replace(UNSAFE, (c, at: number) => (c === '\r' && text[at + 1] === '\n' ? c : ''));
}

/**
 * JSON text, unchanged as data: the characters JSON.stringify leaves raw (DEL, C1, bidi) are
 * written as \u escapes, which stand only inside strings, where they mean the same.
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
