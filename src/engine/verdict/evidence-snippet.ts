/**
 * The words around the marker that decided, for the evidence: a text or regex
 * signal's match with about `SNIPPET_CONTEXT` characters on each side, so a
 * person can see why a hit is a hit without fetching the page again. Pure.
 */
import { namedText, type Signal } from '../../catalogue/platform.js';

/** Characters of context kept on each side of the marker. */
export const SNIPPET_CONTEXT = 60;

/** Longest marker shown whole; a longer match is cut in its middle. */
const MAX_MARKER = 200;

/** White space runs (line breaks, tabs) shown as one space, so the snippet is one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Cuts at code point boundaries only (never half a surrogate pair). */
function safeSlice(text: string, start: number, end: number): string {
  let from = Math.max(0, start);
  let to = Math.min(text.length, end);
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to++;
  return text.slice(from, to);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `…before [marker] after…`: the match at `index` (of `length` characters) in `body`, with context. */
export function snippetAt(body: string, index: number, length: number, context = SNIPPET_CONTEXT): string {
  const before = safeSlice(body, index - context, index);
  let marker = body.slice(index, index + length);
  if (marker.length > MAX_MARKER)
    marker = `${safeSlice(marker, 0, MAX_MARKER / 2)}…${safeSlice(marker, marker.length - MAX_MARKER / 2, marker.length)}`;
  const after = safeSlice(body, index + length, index + length + context);
  const head = index - context > 0 ? '…' : '';
  const tail = index + length + context < body.length ? '…' : '';
  return oneLine(`${head}${before}[${marker}]${after}${tail}`);
}

/**
 * The snippet of a text or regex signal that holds in `body` (a name signal's with `name`
 * filled in); undefined for other signals or no match.
 */
export function signalSnippet(signal: Signal, body: string, name?: string): string | undefined {
  const text =
    signal.kind === 'text'
      ? signal.text
      : signal.kind === 'name' && name !== undefined
        ? namedText(signal, name)
        : undefined;
  if (text !== undefined) {
    const index = body.indexOf(text);
    return index < 0 ? undefined : snippetAt(body, index, text.length);
  }
  if (signal.kind === 'regex') {
    const match = signal.re.exec(body);
    return match ? snippetAt(body, match.index, match.text.length) : undefined;
  }
  return undefined;
}
