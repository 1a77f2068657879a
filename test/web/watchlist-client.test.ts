import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/web/api-failure.js';
import {
  createWatchlistClient,
  lastRunText,
  namesFromText,
  type WatchlistView,
} from '../../src/web/watchlist-client.js';

const base: WatchlistView = {
  id: 'w1',
  names: ['acme'],
  intervalSeconds: 3600,
  notify: 'changes',
  nextRunAt: '2026-01-01T00:00:00.000Z',
  runs: 0,
};

describe('watchlist client', () => {
  it('reads names one per line or comma-separated, without blanks or repeats', () => {
    expect(namesFromText(' acme\nacme_support, acme \n\n,official-acme ')).toEqual([
      'acme',
      'acme_support',
      'official-acme',
    ]);
  });

  it('says what the last run found', () => {
    expect(lastRunText(base)).toBe('not run yet');
    const run = { id: 'r', startedAt: '', searches: {}, skipped: {} };
    expect(lastRunText({ ...base, running: run })).toBe('running now');
    expect(lastRunText({ ...base, runs: 1, lastRun: { ...run, changes: 1 } })).toBe('run 1: 1 change');
    expect(
      lastRunText({ ...base, runs: 2, lastRun: { ...run, changes: 0, skipped: { b: 'rate_limited' } } }),
    ).toBe('run 2: 0 changes, 1 skipped');
  });

  it('sends the saved key and turns a refusal into an ApiError with the service message', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const client = createWatchlistClient({
      apiKey: () => 'usk_1',
      fetch: async (url, init) => {
        calls.push({ url: String(url), init: init ?? {} });
        return new Response(
          JSON.stringify({ error: 'Watchlists need a professional API key', code: 'api_key_required' }),
          {
            status: 401,
            headers: { 'content-type': 'application/json' },
          },
        );
      },
    });
    const failure = await client.list().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).failure).toMatchObject({
      kind: 'unauthorized',
      message: 'Watchlists need a professional API key',
    });
    expect(new Headers(calls[0]!.init.headers).get('x-api-key')).toBe('usk_1');
    expect(calls[0]!.url).toBe('/api/watchlists');
  });
});
