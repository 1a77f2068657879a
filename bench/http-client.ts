/**
 * The API calls the benchmark's clients make, over an undici Pool to the server.
 */
import type { Pool } from 'undici';

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

export async function callJson<T>(
  pool: Pool,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const response = await pool.request({
    method,
    path,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the error message
  }
  return { status: response.statusCode, body: parsed as T };
}

export interface StartedSearch {
  readonly queryId: string;
  readonly totalPlatforms: number;
  /** The service's estimate of the search, queue wait included (seconds). */
  readonly estimatedTime: number;
}

export interface SearchState {
  readonly status: 'running' | 'completed' | 'error';
  readonly createdAt: string;
  readonly completedAt?: string;
  readonly progress: {
    readonly checked: number;
    readonly total: number;
    /** Platforms that answered hit or miss. */
    readonly answered?: number;
    /** Platforms that answered without a verdict, or were not asked (budget_exhausted). */
    readonly unknown?: number;
  };
}

/** Starts a search of `username`, on `platforms` (ids) when given, else a default search. */
export async function startSearch(
  pool: Pool,
  username: string,
  apiKey?: string,
  platforms?: readonly string[],
): Promise<StartedSearch> {
  const answer = await callJson<StartedSearch>(
    pool,
    'POST',
    '/api/search',
    platforms ? { username, platforms } : { username },
    apiKey ? { 'x-api-key': apiKey } : {},
  );
  if (answer.status !== 200)
    throw new Error(`POST /api/search answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
