/**
 * Walks a page's tags once, in order, with htmlparser2's tokenizer: start tags
 * with their attributes, and the whole text of a raw-text element (title,
 * script, style...) when asked for. No tree and no stack of open elements (a
 * stack kept in an array costs time per tag with its depth: 100,000 nested
 * `<div>` take seconds), and no regular expression over the page, so a page
 * built to make a backtracking regex run for minutes is read in one pass like
 * any other. Pure.
 */
import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** A start tag: lower-case names; values as written (entities are not decoded); the first of a repeated attribute. */
export interface Tag {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
}

/** What a visitor answers a tag: read its text, stop the walk, or go on. */
export type TagAnswer = 'text' | 'stop' | undefined;

export interface TagVisitor {
  /** The tags (lower-case names) the visitor is told of: the others are read past, their attributes unread. */
  readonly names: ReadonlySet<string>;
  /** Each start tag named in `names`, in page order. `'text'` asks for the element's text (raw-text elements only). */
  readonly onTag: (tag: Tag) => TagAnswer;
  /** The text of an element `onTag` asked it for, once its end tag is read (never for one the page leaves open). */
  readonly onText?: (tag: Tag, text: string) => 'stop' | undefined;
}

/**
 * The elements the tokenizer reads as text up to their own end tag: the next end
 * tag after one of them opens is its own, so their text needs no stack.
 */
const RAW_TEXT = new Set(['title', 'textarea', 'script', 'style', 'xmp', 'iframe', 'noembed', 'noframes']);

const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();

/** The tokenizer's own fields its skip reads: plain properties, private in its types only. */
interface TokenizerPosition {
  buffer: string;
  index: number;
  offset: number;
}

/**
 * The tokenizer's skip to the next `c` (through text, a raw-text element, a
 * comment, a quoted value), done by `String#indexOf` rather than a loop over
 * each character: the same position, found several times faster.
 */
function skipTo(this: TokenizerPosition, c: number): boolean {
  const at = this.buffer.indexOf(String.fromCharCode(c), this.index + 1 - this.offset);
  if (at >= 0) {
    this.index = at + this.offset;
    return true;
  }
  this.index = this.buffer.length + this.offset - 1;
  return false;
}

/**
 * htmlparser2's tokenizer with its skip done natively, when its version has the
 * skip this replaces (html-scan.test.ts checks both read every page alike).
 */
export class SkippingTokenizer extends Tokenizer {}
if (typeof (Tokenizer.prototype as unknown as Record<string, unknown>).fastForwardTo === 'function')
  Object.defineProperty(SkippingTokenizer.prototype, 'fastForwardTo', { value: skipTo });

/**
 * Calls `visitor` for each tag of `html` until it answers `'stop'` or the page ends.
 * Linear in `html.length` (callers pass the capped body): no page holds the search
 * thread longer than the time to tokenise the capped bytes.
 */
export function walkTags(html: string, visitor: TagVisitor): void {
  let stopped = false;
  let longest = 0;
  for (const wanted of visitor.names) longest = Math.max(longest, wanted.length);
  let name = '';
  /** The tag being read is one of `visitor.names`. */
  let told = false;
  let attributes: Map<string, string> | undefined;
  let attribute = '';
  let value = '';
  /** The raw-text element whose text is being read, and its pieces so far. */
  let reading: Tag | undefined;
  let pieces: string[] = [];

  const endOfStartTag = () => {
    const tag: Tag = { name, attributes: attributes ?? NO_ATTRIBUTES };
    attributes = undefined;
    const answer = visitor.onTag(tag);
    if (answer === 'stop') stop();
    else if (answer === 'text' && RAW_TEXT.has(name)) {
      reading = tag;
      pieces = [];
    }
  };
  const stop = () => {
    stopped = true;
    tokenizer.pause();
  };
  const ignore = () => {};
  const callbacks: TokenizerCallbacks = {
    onopentagname(start, end) {
      if (stopped) return;
      name = end - start <= longest ? html.slice(start, end).toLowerCase() : '';
      told = visitor.names.has(name);
      attributes = undefined;
    },
    onattribname(start, end) {
      if (!told) return;
      attribute = html.slice(start, end).toLowerCase();
      value = '';
    },
    onattribdata(start, end) {
      if (told) value += html.slice(start, end);
    },
    onattribend(quote) {
      // An attribute without a value (`<meta content>`) is not one with an empty value.
      if (!told || quote === QuoteType.NoValue) return;
      attributes ??= new Map();
      if (!attributes.has(attribute)) attributes.set(attribute, value);
    },
    onopentagend() {
      if (told && !stopped) endOfStartTag();
    },
    onselfclosingtag() {
      // In HTML a `/>` does not close a raw-text element: its text is read as for `>`.
      if (told && !stopped) endOfStartTag();
    },
    ontext(start, end) {
      if (reading) pieces.push(html.slice(start, end));
    },
    onclosetag() {
      if (stopped || !reading) return;
      const tag = reading;
      reading = undefined;
      if (visitor.onText?.(tag, pieces.join('')) === 'stop') stop();
      pieces = [];
    },
    onattribentity: ignore,
    ontextentity: ignore,
    oncdata: ignore,
    oncomment: ignore,
    ondeclaration: ignore,
    onprocessinginstruction: ignore,
    onend: ignore,
  };
  // Entities are left as written: values are cleaned (and decoded) where they are used.
  const tokenizer = new SkippingTokenizer({ decodeEntities: false }, callbacks);
  tokenizer.write(html);
  if (!stopped) tokenizer.end();
}
