/**
 * Shapes of the public API's answers, as the page reads them: derived from the
 * API's own schemas (`api/schemas.ts`). Type imports only, so none of that code
 * is bundled into the page.
 */
import type { Static } from '@sinclair/typebox';
import type {
  CategoriesResponse,
  ErrorBody as ErrorBodySchema,
  Platform,
  PlatformsResponse,
  SearchResponse,
  StartBatchResponse,
  StartSearchResponse,
} from '../api/schemas.js';

export type SearchStarted = Static<typeof StartSearchResponse>;
export type BatchStarted = Static<typeof StartBatchResponse>;
export type SearchSnapshot = Static<typeof SearchResponse>;
export type SearchStatus = SearchSnapshot['status'];
export type PlatformInfo = Static<typeof Platform>;
export type PlatformList = Static<typeof PlatformsResponse>;
export type CategoryList = Static<typeof CategoriesResponse>;
export type CategoryInfo = CategoryList['categories'][number];
export type ErrorBody = Static<typeof ErrorBodySchema>;
