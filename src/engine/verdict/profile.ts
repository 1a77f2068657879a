/**
 * What a hit's profile page says about its owner: a fixed set of fields, read
 * by `extractProfile` (profile-extract.ts) from the answer the check already
 * read. Declarations and limits only, so the web page bundles it.
 */

import type { ProfileField } from '../../catalogue/profile-fields.js';

export {
  PROFILE_COUNT_FIELDS,
  PROFILE_FIELDS,
  PROFILE_TEXT_FIELDS,
  PROFILE_URL_FIELDS,
  type ProfileCountField,
  type ProfileField,
  type ProfileTextField,
  type ProfileUrlField,
} from '../../catalogue/profile-fields.js';

/** Fields a platform's rules or the generic extractors fill. */
export type ProfileFields = Partial<Record<ProfileField, string | number>>;

export interface Profile {
  readonly fullName?: string;
  readonly bio?: string;
  readonly location?: string;
  /** As the page gives it (an ISO date when it is one). */
  readonly createdAt?: string;
  readonly avatarUrl?: string;
  readonly website?: string;
  readonly followers?: number;
  readonly following?: number;
  /** Other pages the profile points to (http(s) only): rel="me", sameAs, its website. */
  readonly links?: string[];
  /** Identifiers the platform gives the account (e.g. a numeric user id). */
  readonly ids?: Record<string, string>;
}

/** Longest value kept per field (characters); longer ones are cut with an ellipsis. */
export const PROFILE_LIMITS = {
  fullName: 200,
  bio: 1000,
  location: 200,
  createdAt: 64,
  url: 2048,
  id: 200,
  links: 20,
  ids: 20,
} as const;
