import { describe, expect, it } from 'vitest';
import { changesTable, intervalSeconds, watchTarget } from './watch.js';

describe('watch command helpers', () => {
  it('reads intervals as seconds, minutes, hours or days', () => {
    expect(intervalSeconds('3600')).toBe(3600);
    expect(intervalSeconds('90m')).toBe(5400);
    expect(intervalSeconds('6h')).toBe(21_600);
    expect(intervalSeconds('1d')).toBe(86_400);
    expect(() => intervalSeconds('soon')).toThrow(/--interval must be like/);
  });

  it('takes the server and key from options, then the environment, and names what is missing', () => {
    expect(watchTarget({}, { USERSCOUT_SERVER: 'http://h:3000/', USERSCOUT_KEY: 'k' })).toEqual({
      server: 'http://h:3000',
      key: 'k',
    });
    expect(
      watchTarget({ server: 'http://o', key: 'o' }, { USERSCOUT_SERVER: 'http://h', USERSCOUT_KEY: 'k' }),
    ).toEqual({
      server: 'http://o',
      key: 'o',
    });
    expect(() => watchTarget({}, { USERSCOUT_KEY: 'k' })).toThrow(/--server/);
    expect(() => watchTarget({ server: 'http://h' }, {})).toThrow(/--key/);
  });

  it('prints one line per change', () => {
    expect(changesTable([])).toBe('no changes');
    expect(
      changesTable([
        {
          seq: 1,
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
