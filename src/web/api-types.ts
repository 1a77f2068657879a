/**
 * Shapes of the public API's answers, as the page reads them.
 */
import type { Outcome } from '../engine/outcome.js';

export type SearchStatus = 'running' | 'completed' | 'error';

export interface SearchStarted {
  readonly queryId: string;
  readonly status: 'running';
  readonly totalPlatforms: number;
  /** Seconds. */
  readonly estimatedTime: number;
}

export interface SearchSnapshot {
  readonly queryId: string;
  readonly status: SearchStatus;
  readonly username: string;
  readonly results: readonly Outcome[];
  readonly progress: {
    readonly checked: number;
    readonly total: number;
    readonly hits: number;
    readonly queued: boolean;
  };
  /** Seconds. */
  readonly estimatedTime: number;
  readonly createdAt: string;
  readonly completedAt?: string;
  readonly error?: string;
}

export interface PlatformInfo {
  readonly name: string;
  readonly id: string;
  readonly category: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly nsfw: boolean;
  readonly disabledReason?: string;
}

export interface PlatformList {
  readonly platforms: readonly PlatformInfo[];
  readonly total: number;
}

export interface CategoryInfo {
  readonly name: string;
  readonly description: string;
  readonly platforms: number;
}

export interface CategoryList {
  readonly categories: readonly CategoryInfo[];
  readonly total: number;
}

export interface ErrorBody {
  readonly error: string;
  readonly code: string;
  readonly requestId: string;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;
}
