import { describe, expect, it } from 'vitest';
import { improbableName, knownNames } from '../../../src/catalogue/importers/known-names.js';
import { compileUsernameRule } from '../../../src/catalogue/username-rule.js';

const usernameRule = (pattern: string | undefined) => compileUsernameRule({ pattern });

describe('improbableName', () => {
  it.each([
    ['no rule', undefined, 'noonewouldeverusethis7'],
    ['letters only', '^[a-z]+$', 'noonewouldeverusethis'],
    ['upper case only', '^[A-Z]+$', 'NOONEWOULDEVERUSETHIS'],
    ['short names', '^[a-z0-9]{3,12}$', 'noonewoulde7'],
    ['a separator required', '^[a-z]+_[a-z0-9_]+$', 'noone_would_ever_use_this7'],
    ['digits only', '^[1-9][0-9]{0,14}$', '999999999999'],
    ['long minimum', '^[a-z0-9]{30,}$', 'noonewouldeverusethis7noonewouldeverusethis7'],
  ])('%s', (_label, pattern, expected) => {
    expect(improbableName(usernameRule(pattern), [])).toBe(expected);
  });

  it('is deterministic and skips names listed as claimed', () => {
    const rule = usernameRule(undefined);
    expect(improbableName(rule, ['noonewouldeverusethis7'])).toBe('noonewouldeverusethis');
  });

  it('gives up when nothing fits, rather than use a short, likely taken name', () => {
    expect(improbableName(usernameRule('^x$'), [])).toBeUndefined();
    expect(improbableName(usernameRule('^[a-z]{1,4}$'), [])).toBeUndefined();
  });
});

describe('knownNames', () => {
  it('keeps searchable claimed names and makes up an unclaimed one', () => {
    expect(knownNames(usernameRule(undefined), ['Travis Branham', 'blair'])).toEqual({
      claimed: ['blair'],
      unclaimed: ['noonewouldeverusethis7'],
    });
  });

  it('uses the upstream unclaimed name when it fits the rule', () => {
    expect(knownNames(usernameRule('^[a-z]+$'), ['blue'], ['nobodyhere'])).toEqual({
      claimed: ['blue'],
      unclaimed: ['nobodyhere'],
    });
    expect(knownNames(usernameRule('^[a-z]+$'), ['blue'], ['nobody7'])).toEqual({
      claimed: ['blue'],
      unclaimed: ['noonewouldeverusethis'],
    });
  });

  it('rejects an entry without a searchable claimed name', () => {
    expect(knownNames(usernameRule(undefined), ['a/b'])).toEqual({
      reason: 'no known account name userscout can search ("a/b")',
    });
    expect(knownNames(usernameRule('^x$'), ['x'])).toEqual({
      reason: 'no improbable unclaimed name fits the username rule ^x$',
    });
  });
});
