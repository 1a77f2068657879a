import { describe, expect, it } from 'vitest';
import { lookalikeNames, platformsForVariant, VARIANT_KINDS } from './lookalike-names.js';
import { compileUsernameRule, usernameProblem } from './username-rule.js';

const names = (name: string, max = 500) => lookalikeNames(name, max).map((v) => v.username);

describe('lookalikeNames', () => {
  it('gives the same list in the same order every time', () => {
    expect(lookalikeNames('john.doe', 40)).toEqual(lookalikeNames('john.doe', 40));
  });

  it('never gives the name itself, in any case, and each name once (case-insensitively)', () => {
    for (const name of ['john.doe', 'JohnDoe', 'modern', 'oli1']) {
      const list = names(name);
      expect(list.map((n) => n.toLowerCase())).not.toContain(name.toLowerCase());
      expect(new Set(list.map((n) => n.toLowerCase())).size).toBe(list.length);
    }
  });

  it('joins the words with each separator', () => {
    const list = names('john.doe');
    for (const n of ['john_doe', 'john-doe', 'johndoe']) expect(list).toContain(n);
    expect(names('JohnDoe')).toEqual(expect.arrayContaining(['John.Doe', 'John_Doe', 'John-Doe']));
  });

  it('swaps look-alike characters one at a time: 0/o, 1/l/i, rn/m', () => {
    const list = names('modern1');
    expect(list).toEqual(expect.arrayContaining(['m0dern1', 'rnodern1', 'modem1', 'modernl', 'moderni']));
    expect(names('oli')).toEqual(expect.arrayContaining(['0li', 'o1i', 'ol1', 'oii', 'oll']));
  });

  it('doubles and drops letters', () => {
    const list = names('anna');
    expect(list).toEqual(expect.arrayContaining(['aanna', 'annna', 'annaa', 'ana', 'nna', 'ann']));
  });

  it('adds the usual prefixes and suffixes', () => {
    const list = names('acme');
    expect(list).toEqual(
      expect.arrayContaining([
        'realacme',
        'real_acme',
        'officialacme',
        'theacme',
        '_acme',
        'acme_',
        'acme1',
        'acme123',
        'acme_official',
      ]),
    );
  });

  it('replaces Latin letters with the Cyrillic ones drawn the same', () => {
    const homoglyphs = lookalikeNames('acme', 500).filter((v) => v.kind === 'homoglyph');
    expect(homoglyphs.map((v) => v.username)).toEqual(['\u0430cme', 'a\u0441me', 'acm\u0435']);
  });

  it('stops at the cap, every kind taking turns so a small cap holds each kind', () => {
    const list = lookalikeNames('john.doe', VARIANT_KINDS.length);
    expect(list).toHaveLength(VARIANT_KINDS.length);
    expect(list.map((v) => v.kind)).toEqual([...VARIANT_KINDS]);
    expect(lookalikeNames('john.doe', 0)).toEqual([]);
  });

  it('gives only names the service accepts', () => {
    for (const v of lookalikeNames('x', 500)) expect(usernameProblem(v.username)).toBeUndefined();
    expect(names('a.b')).not.toContain('.');
  });
});

describe('platformsForVariant', () => {
  const strict = { id: 'strict', username: compileUsernameRule({ pattern: '^[a-z0-9_]+$' }) };
  const short = { id: 'short', username: compileUsernameRule({ maxLength: 5 }) };
  const open = { id: 'open', username: compileUsernameRule() };
  const unicode = { id: 'unicode', username: compileUsernameRule({ pattern: '^\\p{L}+$' }) };
  const all = [strict, short, open, unicode];

  it('keeps only the platforms whose rule accepts the variant', () => {
    expect(platformsForVariant({ username: 'john_doe', kind: 'separator' }, all).map((p) => p.id)).toEqual([
      'strict',
      'open',
    ]);
    expect(platformsForVariant({ username: 'john.doe', kind: 'separator' }, all).map((p) => p.id)).toEqual([
      'open',
    ]);
  });

  it('checks a homoglyph only where a stated rule allows it', () => {
    const variant = { username: '\u0430cme', kind: 'homoglyph' as const };
    expect(platformsForVariant(variant, all).map((p) => p.id)).toEqual(['unicode']);
  });
});
