import { describe, expect, it } from 'vitest';
import { changesTable, intervalSeconds, newWatchlist, watchConnection } from './watch.js';

describe('watch command helpers', () => {
  it('reads intervals as seconds, minutes, hours or days', () => {
    expect(intervalSeconds('3600')).toBe(3600);
    expect(intervalSeconds('90m')).toBe(5400);
    expect(intervalSeconds('6h')).toBe(21_600);
    expect(intervalSeconds('1d')).toBe(86_400);
    expect(() => intervalSeconds('soon')).toThrow(/--interval must be like/);
  });

  it('takes the server and key from options, then the settings, and names what is missing', () => {
    expect(watchConnection({}, { server: 'http://h:3000/', apiKey: 'k' })).toEqual({
      baseUrl: 'http://h:3000',
      apiKey: 'k',
    });
    expect(watchConnection({ server: 'http://o', key: 'o' }, { server: 'http://h', apiKey: 'k' })).toEqual({
      baseUrl: 'http://o',
      apiKey: 'o',
    });
    expect(() => watchConnection({}, { server: '', apiKey: 'k' })).toThrow(/--server/);
    expect(() => watchConnection({ server: 'http://h' }, { server: '', apiKey: '' })).toThrow(/--key/);
  });

  it('builds the watchlist from the options, leaving out what was not given', () => {
    expect(newWatchlist(['acme'], {})).toEqual({ names: ['acme'] });
    expect(
      newWatchlist(['acme', 'acme_hq'], {
        interval: '6h',
        webhook: 'https://hooks.example/x',
        category: ['social'],
        everyRun: true,
      }),
    ).toEqual({
      names: ['acme', 'acme_hq'],
      intervalSeconds: 21_600,
      webhookUrl: 'https://hooks.example/x',
      categories: ['social'],
      notify: 'every_run',
    });
  });

  it('prints one line per change', () => {
    expect(changesTable([])).toBe('no changes');
    expect(
      changesTable([
        {
          seq: 1,
          runId: 'r1',
          platformId: 'bravo',
          at: '2026-01-01T00:00:00.000Z',
          kind: 'new_hit',
          username: 'acme',
          platform: 'Bravo',
          from: 'miss',
          to: 'hit',
          url: 'https://bravo.test/u/acme',
        },
      ]),
    ).toBe('1\t2026-01-01T00:00:00.000Z\tnew_hit\tacme\tBravo\tmiss->hit\thttps://bravo.test/u/acme');
  });
});
