/**
 * Non-Latin names, which other tools report as false hits (maigret#2633): a name
 * in a script a platform does
 * not allow is `invalid` there and nothing is sent, so a CJK or Cyrillic name
 * can never be a hit on an ASCII-only platform.
 */
import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import { compileUsernameRule, ruleViolation } from '../../src/catalogue/username-rule.js';
import { checkPipeline, type PipelineParts } from '../../src/engine/pipeline/pipeline.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const CJK = '山田太郎';
const CYRILLIC = 'Кирилл';
const GREEK = 'Αλέξης';
const { catalogue } = loadBuiltinCatalogue();

/** A pattern written to admit letters beyond ASCII: a Unicode property or a negated class. */
const admitsUnicode = (source: string) => /\\p\{|\[\^/.test(source);

describe('non-Latin names on the built-in catalogue', () => {
  it('are refused by every platform whose username rule is ASCII', () => {
    const ascii = catalogue.platforms.filter(
      (p) => p.username.pattern && !admitsUnicode(p.username.pattern.source),
    );
    expect(ascii.length).toBeGreaterThan(1000);
    for (const p of ascii)
      for (const name of [CJK, CYRILLIC, GREEK])
        expect(ruleViolation(p.username, name), `${p.name}: ${name}`).toBeDefined();
  });

  it('are allowed only where the site allows them: wikis and maps take any script, Russian forums Cyrillic', () => {
    const takes = (name: string) =>
      catalogue.platforms
        .filter((p) => ruleViolation(p.username, name) === undefined)
        .map((p) => p.name)
        .sort();
    const cyrillicOnly = takes(CYRILLIC).filter((n) => !takes(CJK).includes(n));
    // AllTheLyrics refuses Chinese, Japanese and Korean script only (any other name goes).
    expect(cyrillicOnly).toEqual([
      'AllTheLyrics Forum',
      'Hunting.ru Forum',
      'Prokoni',
      'Rusfootball',
      'Чатовка.net',
    ]);
    for (const name of takes(CJK)) {
      const platform = catalogue.platforms.find((p) => p.name === name)!;
      expect(admitsUnicode(platform.username.pattern!.source), name).toBe(true);
    }
  });
});

describe('a platform without a pattern of its own (an imported entry)', () => {
  const rule = compileUsernameRule({});

  it('takes ASCII names only', () => {
    expect(ruleViolation(rule, 'alice.b-c_d')).toBeUndefined();
    for (const name of [CJK, CYRILLIC, GREEK, 'ålice'])
      expect(ruleViolation(rule, name)).toBe(
        'has characters outside ASCII, which a platform without a username pattern is taken not to allow',
      );
  });

  it('gives invalid/username_rule for a CJK name, with nothing sent', async () => {
    const [platform] = catalogueOf([entry('Plain')]).platforms;
    // A pipeline with nothing to send through: reaching the scheduler or the network would throw.
    const checkPlatform = checkPipeline({ baseHeaders: {}, egress: [{}] } as unknown as PipelineParts);
    const outcome = await checkPlatform(platform!, CJK);
    expect(outcome).toMatchObject({ status: 'invalid', reason: 'username_rule', responseTime: 0 });
    expect(outcome.evidence.attempts).toBe(0);
  });
});
