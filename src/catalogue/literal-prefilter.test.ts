import { describe, expect, it } from 'vitest';
import { literalStarts } from './literal-prefilter.js';

describe('literalStarts', () => {
  it('reads an alternation of markers as exact leads', () => {
    expect(literalStarts('memberHeader-content|profilePage|mainProfileColumn')).toEqual({
      leads: ['memberHeader-content', 'profilePage', 'mainProfileColumn'],
      exact: true,
    });
    expect(literalStarts('udtlb">Пользователь:</div>|Дата регистрации')).toEqual({
      leads: ['udtlb">Пользователь:</div>', 'Дата регистрации'],
      exact: true,
    });
  });

  it('reads escaped punctuation as literal, and stops at a class, a group or an escaped letter', () => {
    expect(literalStarts('src="/\\.s/rnk/')).toEqual({ leads: ['src="/.s/rnk/'], exact: true });
    expect(literalStarts('"id":\\d+')).toEqual({ leads: ['"id":'], exact: false });
    expect(literalStarts('View Profile: [a-z]+|x(y)')).toEqual({
      leads: ['View Profile: ', 'x'],
      exact: false,
    });
  });

  it('gives back the character a quantifier makes optional', () => {
    expect(literalStarts('colou?r')).toEqual({ leads: ['colo'], exact: false });
    expect(literalStarts('ab*c')).toEqual({ leads: ['a'], exact: false });
    expect(literalStarts('ab{0,2}')).toEqual({ leads: ['a'], exact: false });
    expect(literalStarts('ab+')).toEqual({ leads: ['ab'], exact: false });
    expect(literalStarts('a😀?')).toEqual({ leads: ['a'], exact: false });
  });

  it('keeps a | inside a group or a class from splitting the pattern', () => {
    expect(literalStarts('ab(c|d)')).toEqual({ leads: ['ab'], exact: false });
    expect(literalStarts('ab[|]c|e')).toEqual({ leads: ['ab', 'e'], exact: false });
    expect(literalStarts('a[]|]b')).toEqual({ leads: ['a'], exact: false });
    expect(literalStarts('a\\|b')).toEqual({ leads: ['a|b'], exact: true });
  });

  it('gives none when an alternative may start with anything', () => {
    for (const source of [
      '(?i)profile',
      '^profile',
      'profile|',
      '[a-z]+ profile',
      '\\bprofile',
      '.*x',
      'a|(b',
    ])
      expect(literalStarts(source), source).toBeUndefined();
  });
});
