/**
 * Names no platform can be sent, through the whole engine (with checks shared across
 * processes, as in cluster mode): each platform ends `invalid` with nothing sent,
 * never `error`/`internal` from an exception.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/engine/create-engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const catalogue = catalogueOf([
  entry('Plain'),
  entry('Lower', {
    username: { pattern: '^[a-z0-9]+$', lowercase: true },
    known: { claimed: ['alice'], unclaimed: ['nobody7'] },
  }),
  entry('Sub', { profile: 'https://{username}.sub.test/' }),
]);

describe('the engine and names no platform can be sent', () => {
  it.each([
    ['a lone surrogate', '\ud800abc', ['Plain', 'Lower', 'Sub']],
    [
      'the KELVIN SIGN, on the platforms that lowercase or put it in a host name',
      '\u212Aelvin',
      ['Lower', 'Sub'],
    ],
  ])('%s', async (_what, username, invalidOn) => {
    const engine = createEngine(loadConfig({ timeoutMs: 1_000, refusePrivate: true }, {}), catalogue, {
      sharedChecks: { run: (_key, check) => check() },
    });
    try {
      const outcomes: Outcome[] = [];
      for await (const o of engine.search(username, catalogue.platforms)) outcomes.push(o);
      for (const name of invalidOn) {
        const outcome = outcomes.find((o) => o.platform === name);
        expect(outcome, name).toMatchObject({ status: 'invalid', responseTime: 0 });
      }
      expect(outcomes.filter((o) => o.status === 'error' && o.reason === 'internal')).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
