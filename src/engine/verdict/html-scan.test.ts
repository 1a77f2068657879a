import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { randomPage, seeded } from '../../../test/support/random-html.js';
import { SkippingTokenizer, type Tag, walkTags } from './html-scan.js';

const CALLBACKS = [
  'onattribdata',
  'onattribentity',
  'onattribend',
  'onattribname',
  'oncdata',
  'onclosetag',
  'oncomment',
  'ondeclaration',
  'onend',
  'onopentagend',
  'onopentagname',
  'onprocessinginstruction',
  'onselfclosingtag',
  'ontext',
  'ontextentity',
] as const;

const ALL = new Set(['meta', 'link', 'a', 'script', 'title', 'div', 'style']);

/** Every tag told of (name and attributes) and every text read, in order. */
function walked(html: string, names: ReadonlySet<string> = ALL, textOf = new Set(['title', 'script'])) {
  const seen: unknown[] = [];
  walkTags(html, {
    names,
    onTag: (tag: Tag) => {
      seen.push([tag.name, Object.fromEntries(tag.attributes)]);
      return textOf.has(tag.name) ? 'text' : undefined;
    },
    onText: (tag, text) => {
      seen.push([`${tag.name} text`, text]);
      return text === 'STOP' ? 'stop' : undefined;
    },
  });
  return seen;
}

describe('walkTags', () => {
  it('tells of the named tags with their attributes, as written', () => {
    expect(
      walked(
        '<META Property="og:title" CONTENT=\'A &amp; B\' content="second" async><p class=x><a rel=me href=/u>x</a>',
      ),
    ).toEqual([
      ['meta', { property: 'og:title', content: 'A &amp; B' }],
      ['a', { rel: 'me', href: '/u' }],
    ]);
  });

  it('reads the whole text of a title or script, tags and all, once it ends', () => {
    expect(
      walked('<title> A <b>bold</b> title </title><script type="application/ld+json">{"a":"</p>"}</script>'),
    ).toEqual([
      ['title', {}],
      ['title text', ' A <b>bold</b> title '],
      ['script', { type: 'application/ld+json' }],
      ['script text', '{"a":"</p>"}'],
    ]);
    expect(walked('<title></title>')).toEqual([
      ['title', {}],
      ['title text', ''],
    ]);
    // Left open: no text, as the page never said where it ends.
    expect(walked('<title>never closed <meta name=a content=b>')).toEqual([['title', {}]]);
  });

  it('sees no tags inside comments, scripts or attribute values', () => {
    expect(
      walked(
        '<!-- <meta name=a content=b> --><script>"<meta name=c content=d>"</script><div title="<meta>">',
        ALL,
        new Set(),
      ),
    ).toEqual([
      ['script', {}],
      ['div', { title: '<meta>' }],
    ]);
  });

  it('ends when the visitor says stop', () => {
    expect(walked('<title>STOP</title><meta name=a content=b>')).toEqual([
      ['title', {}],
      ['title text', 'STOP'],
    ]);
  });

  it('reads what htmlparser2 reads, page for page', () => {
    const random = seeded(17);
    const differ: string[] = [];
    for (let n = 0; n < 200; n++) {
      const page = randomPage(random);
      const events = (make: (cbs: TokenizerCallbacks) => Tokenizer) => {
        const out: unknown[] = [];
        const cbs = Object.fromEntries(
          CALLBACKS.map((key) => [key, (...args: unknown[]) => void out.push([key, ...args])]),
        ) as unknown as TokenizerCallbacks;
        const tokenizer = make(cbs);
        tokenizer.write(page);
        tokenizer.end();
        return JSON.stringify(out);
      };
      const skipping = events((cbs) => new SkippingTokenizer({ decodeEntities: false }, cbs));
      // Compared as one string each: a deep comparison of every event is slow for no gain.
      if (skipping !== events((cbs) => new Tokenizer({ decodeEntities: false }, cbs))) differ.push(page);
    }
    expect(differ).toEqual([]);
  });
});
