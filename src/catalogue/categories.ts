/**
 * The closed list of platform categories. Every platform is in exactly one;
 * free-form `tags` carry everything finer. Order is the display order.
 */
export const CATEGORIES = [
  'social',
  'coding',
  'tech',
  'gaming',
  'music',
  'video',
  'art',
  'images',
  'blog',
  'forum',
  'news',
  'political',
  'business',
  'finance',
  'crypto',
  'shopping',
  'dating',
  'hobby',
  'sports',
  'health',
  'education',
  'archived',
  'misc',
  'nsfw',
] as const;

export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_DESCRIPTIONS: Record<Category, string> = {
  social: 'Social networks, microblogs, messaging and link-in-bio pages',
  coding: 'Code hosting, developer Q&A, package registries, programming contests',
  tech: 'Technology communities, security, hardware, IT and maker sites',
  gaming: 'Games, game stores, esports, speedrunning, modding',
  music: 'Music streaming, artists, DJ mixes, music communities',
  video: 'Video hosting and live streaming',
  art: 'Art, illustration, design, 3D and creative portfolios',
  images: 'Photo hosting and photography communities',
  blog: 'Blogs, newsletters and writing platforms',
  forum: 'Discussion forums and Q&A communities',
  news: 'News sites and news aggregators with user profiles',
  political: 'Political, activism and petition platforms',
  business: 'Professional networks, freelancing, jobs, productivity SaaS',
  finance: 'Payments, donations, crowdfunding, trading',
  crypto: 'Cryptocurrency, blockchain and NFT platforms',
  shopping: 'Marketplaces, shops and classifieds',
  dating: 'Dating and friendship sites',
  hobby: 'Hobbies: books, films, cooking, crafts, travel, collecting, pets',
  sports: 'Sports, fitness tracking and outdoor activities',
  health: 'Health, wellbeing and medical communities',
  education: 'Learning platforms, courses, languages, science',
  archived: 'Archives and caches of pages and profiles',
  misc: 'Everything that fits no other category',
  nsfw: 'Adult content (excluded from searches unless asked for)',
};

export function isCategory(value: string): value is Category {
  return (CATEGORIES as readonly string[]).includes(value);
}
