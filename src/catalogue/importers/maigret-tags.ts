/**
 * Maigret's free tags to our closed categories: the most specific category any
 * tag names wins, and the other tags stay tags.
 */
import type { Category } from '../categories.js';

/** Maigret tags that name one of our categories. Tags not listed here stay tags only. */
const TAG_CATEGORIES: Readonly<Record<string, Category>> = {
  porn: 'nsfw',
  erotic: 'nsfw',
  webcam: 'nsfw',
  coding: 'coding',
  crypto: 'crypto',
  nft: 'crypto',
  dating: 'dating',
  gaming: 'gaming',
  gambling: 'gaming',
  music: 'music',
  video: 'video',
  streaming: 'video',
  art: 'art',
  '3d': 'art',
  design: 'art',
  photo: 'images',
  stock: 'images',
  blog: 'blog',
  writing: 'blog',
  news: 'news',
  finance: 'finance',
  fintech: 'finance',
  trading: 'finance',
  shopping: 'shopping',
  classified: 'shopping',
  fashion: 'shopping',
  sport: 'sports',
  medicine: 'health',
  psychology: 'health',
  education: 'education',
  science: 'education',
  research: 'education',
  wiki: 'education',
  business: 'business',
  career: 'business',
  freelance: 'business',
  professional: 'business',
  networking: 'business',
  tasks: 'business',
  hobby: 'hobby',
  anime: 'hobby',
  auto: 'hobby',
  books: 'hobby',
  reading: 'hobby',
  cooking: 'hobby',
  movies: 'hobby',
  travel: 'hobby',
  firearms: 'hobby',
  esoteric: 'hobby',
  parenting: 'hobby',
  tech: 'tech',
  hacking: 'tech',
  cybercriminal: 'tech',
  apps: 'tech',
  llm: 'tech',
  archive: 'archived',
  forum: 'forum',
  discussion: 'forum',
  'q&a': 'forum',
  social: 'social',
  messaging: 'social',
  geosocial: 'social',
  mastodon: 'social',
  lemmy: 'social',
  links: 'social',
};

/** When tags point at several categories, the most specific wins (forum and social are generic). */
const CATEGORY_PRIORITY: readonly Category[] = [
  'nsfw',
  'coding',
  'crypto',
  'dating',
  'gaming',
  'music',
  'video',
  'art',
  'images',
  'blog',
  'news',
  'political',
  'finance',
  'shopping',
  'sports',
  'health',
  'education',
  'business',
  'hobby',
  'tech',
  'archived',
  'forum',
  'social',
];

/** The category for a list of Maigret tags, and the tags left once one named it. */
export function categoryAndTags(upstream: readonly string[]): { category: Category; tags: string[] } {
  const tags = [...new Set(upstream.map((t) => t.trim()).filter(Boolean))];
  for (const category of CATEGORY_PRIORITY) {
    const tag = tags.find((t) => TAG_CATEGORIES[t.toLowerCase()] === category);
    if (tag !== undefined) return { category, tags: tags.filter((t) => t !== tag) };
  }
  return { category: 'misc', tags };
}
