/**
 * Random and adversarial HTML from a seed: pieces of real pages (meta tags,
 * JSON-LD, rel="me" links, titles, comments, entities) mixed with the shapes
 * that make a backtracking regex or a tree builder slow (openers never closed,
 * runs of one letter, deep nesting, long values), bytes of any kind, and cuts
 * anywhere. The same seed gives the same pages.
 */
export { seededRandom as seeded } from '../../src/sim/random.js';

const TAGS = [
  'meta',
  'link',
  'a',
  'script',
  'title',
  'div',
  'p',
  'svg',
  'textarea',
  'style',
  'TITLE',
  'Meta',
];
const ATTRIBUTES = ['property', 'name', 'content', 'rel', 'href', 'type', 'itemprop', 'CONTENT', 'data-x'];
const VALUES = [
  'og:title',
  'og:description',
  'og:image',
  'twitter:title',
  'description',
  'me',
  'me nofollow',
  'application/ld+json',
  'https://alice.example/',
  '/avatars/a.png',
  'javascript:alert(1)',
  'Alice &amp; Bob',
  '&lt;script&gt;x&lt;/script&gt;',
  '&#x1F600; &#0; &#xD800; &#99999999;',
  '1.2k',
];
const JSON_LD = [
  '{"@type":"Person","name":"Alice","sameAs":["https://github.com/alice"]}',
  '{"@type":"ProfilePage","mainEntity":{"@type":"Person","name":"A","image":{"url":"/a.png"}}}',
  '{"@graph":[{"@type":"Person","name":"G","homeLocation":{"name":"Paris"}}]}',
  `[${'1,'.repeat(5000)}1]`,
  `${'['.repeat(3000)}${']'.repeat(3000)}`,
  '{"@type":"Person", "name": ',
];

type Random = () => number;

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const int = (random: Random, max: number) => Math.floor(random() * (max + 1));

function anyText(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    const r = random();
    // Mostly ASCII, the markup characters often, then any code unit (lone surrogates included).
    out +=
      r < 0.6
        ? String.fromCharCode(32 + int(random, 94))
        : r < 0.85
          ? pick(random, ['<', '>', '"', "'", '=', '&', ';', '/', '-', '!', ' ', '\n'])
          : String.fromCharCode(int(random, 0xffff));
  }
  return out;
}

function attribute(random: Random): string {
  const name = pick(random, ATTRIBUTES);
  const value = random() < 0.8 ? pick(random, VALUES) : anyText(random, int(random, 40));
  switch (int(random, 4)) {
    case 0:
      return ` ${name}="${value}"`;
    case 1:
      return ` ${name}='${value}'`;
    case 2:
      return ` ${name}=${value.replace(/\s/g, '')}`;
    case 3:
      return ` ${name}`;
    default:
      return ` ${name} = "${value}`; // never closed
  }
}

function piece(random: Random): string {
  const r = random();
  if (r < 0.35) {
    const tag = pick(random, TAGS);
    let attrs = '';
    for (let n = int(random, 4); n > 0; n--) attrs += attribute(random);
    const body =
      tag.toLowerCase() === 'script' && random() < 0.6 ? pick(random, JSON_LD) : anyText(random, 20);
    const end = random() < 0.8 ? `</${tag}>` : '';
    return `<${tag}${attrs}${random() < 0.1 ? '/' : ''}>${body}${end}`;
  }
  if (r < 0.5) return anyText(random, int(random, 80));
  if (r < 0.55) return `<!--${anyText(random, 30)}${random() < 0.5 ? '-->' : ''}`;
  if (r < 0.6) return `<![CDATA[${anyText(random, 10)}`;
  if (r < 0.65) return `</${pick(random, TAGS)}${random() < 0.5 ? '>' : ''}`;
  // Adversarial runs: a few hundred to a few thousand repeats of one shape.
  const runs = [
    '<a ',
    'q',
    '<meta ',
    '<script type=application/ld+json ',
    '<title',
    '<div>',
    '</span>',
    '<!--',
    '&amp',
    '<',
    '"',
  ];
  return pick(random, runs).repeat(100 + int(random, 3000));
}

/** A page of up to about `maxPieces` pieces, sometimes cut at any character. */
export function randomPage(random: Random, maxPieces = 60): string {
  let page = '';
  for (let n = 1 + int(random, maxPieces - 1); n > 0; n--) page += piece(random);
  return random() < 0.2 ? page.slice(0, int(random, page.length)) : page;
}
