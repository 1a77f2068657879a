/**
 * The comments of a TypeScript source, found by a small lexer: strings, template
 * literals (with their `${}` nesting) and regular expression literals are skipped,
 * so a `//` inside them is never taken for a comment. The installed TypeScript is
 * the native compiler, which has no JavaScript API to ask.
 */

export interface SourceComment {
  /** 1-based line the comment starts on. */
  line: number;
  text: string;
}

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** Whether a `/` after this much of the source starts a regular expression rather than a division. */
function slashStartsRegex(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(text[i] ?? '')) i--;
  if (i < 0) return true;
  const c = text[i] ?? '';
  if (c === ')' || c === ']' || c === '}') return false;
  if (/[\w$]/.test(c)) {
    let start = i;
    while (start > 0 && /[\w$]/.test(text[start - 1] ?? '')) start--;
    return KEYWORDS_BEFORE_EXPRESSION.has(text.slice(start, i + 1));
  }
  return true;
}

export function commentsOf(text: string): SourceComment[] {
  const comments: SourceComment[] = [];
  // Each open template literal's count of `{` opened inside its current `${`.
  const templates: number[] = [];
  let line = 1;
  let i = 0;
  const advanceTo = (end: number) => {
    for (; i < end; i++) if (text[i] === '\n') line++;
  };
  /** Skips template text from i (just inside a backtick or after `}`) to its end or next `${`. */
  const templateText = () => {
    let j = i;
    while (j < text.length) {
      const c = text[j];
      if (c === '\\') j += 2;
      else if (c === '`') {
        advanceTo(j + 1);
        templates.pop();
        return;
      } else if (c === '$' && text[j + 1] === '{') {
        advanceTo(j + 2);
        return;
      } else j++;
    }
    advanceTo(text.length);
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      comments.push({ line, text: text.slice(i, stop) });
      advanceTo(stop);
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      comments.push({ line, text: text.slice(i, stop) });
      advanceTo(stop);
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      advanceTo(j + 1);
    } else if (c === '`') {
      templates.push(0);
      advanceTo(i + 1);
      templateText();
    } else if (c === '{' && templates.length > 0) {
      templates[templates.length - 1]! += 1;
      advanceTo(i + 1);
    } else if (c === '}' && templates.length > 0) {
      const depth = templates[templates.length - 1]!;
      advanceTo(i + 1);
      if (depth === 0) templateText();
      else templates[templates.length - 1] = depth - 1;
    } else if (c === '/' && slashStartsRegex(text, i)) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        const r = text[j];
        if (r === '\\') j += 2;
        else {
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
          j++;
        }
      }
      advanceTo(j + 1);
    } else advanceTo(i + 1);
  }
  return comments;
}
