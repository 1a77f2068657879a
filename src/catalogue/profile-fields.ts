/**
 * The profile fields an entry's `extract` rules may fill (schema.ts) and the
 * engine reads for hits (engine/verdict/profile.ts): one list for both.
 */
export const PROFILE_TEXT_FIELDS = ['fullName', 'bio', 'location', 'createdAt'] as const;
export const PROFILE_URL_FIELDS = ['avatarUrl', 'website'] as const;
export const PROFILE_COUNT_FIELDS = ['followers', 'following'] as const;
export const PROFILE_FIELDS = [
  ...PROFILE_TEXT_FIELDS,
  ...PROFILE_URL_FIELDS,
  ...PROFILE_COUNT_FIELDS,
] as const;
export type ProfileTextField = (typeof PROFILE_TEXT_FIELDS)[number];
export type ProfileUrlField = (typeof PROFILE_URL_FIELDS)[number];
export type ProfileCountField = (typeof PROFILE_COUNT_FIELDS)[number];
export type ProfileField = (typeof PROFILE_FIELDS)[number];
