/** `userscout/client`: a typed client for a userscout service. */
export {
  type CallOptions,
  type ClientOptions,
  type FollowEvent,
  type FollowOptions,
  type NewWatchlist,
  type PlatformList,
  type Search,
  type SearchCallOptions,
  type SearchOptions,
  type SearchResult,
  type SearchStarted,
  UserscoutClient,
  type WatchChange,
  type Watchlist,
} from './client.js';
export { CLIENT_ERROR_CODES, type ClientErrorCode, UserscoutClientError } from './client-error.js';
