import { describe, expect, it } from 'vitest';
import { referenceEntries } from '../../src/catalogue/reference-lists.js';
import { formatValidateReport, validateDocument, validateFile } from '../../src/cli/catalogue-validate.js';
import { entry } from '../support/catalogue.js';
import { referenceDir } from '../support/reference.js';

describe('catalogue validate', () => {
  it('finds nothing wrong in the built-in catalogue', () => {
    const report = validateFile(undefined);
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(report.entries);
  });

  it('reports two entries that check the same address, however the URL is written', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Alpha', { profile: 'https://alpha.test/u/{username}' }),
          entry('Alpha Again', { profile: 'HTTPS://Alpha.test/u/{username}/' }),
          entry('Bravo'),
        ],
      },
      'mine.json',
    );
    expect(report.problems).toEqual([
      {
        platform: 'Alpha Again',
        field: '/check/url',
        message: expect.stringMatching(/^checks the same address as Alpha: /),
      },
    ]);
    expect(formatValidateReport(report)).toContain('mine.json: 3 entries, 3 valid, 1 problem');
  });

  it('reports every problem of an entry by field', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Alpha', {
            profile: 'https://alpha.test/u/',
            detect: { exists: [{ status: [200] }], missing: [{ regex: '([' }] },
            username: { pattern: '^[a-z]+$' },
            known: { claimed: ['al ice'], unclaimed: ['nobody'] },
          }),
        ],
      },
      'mine.json',
    );
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Alpha /profile',
      'Alpha /detect/missing/0',
      'Alpha /known/claimed/0',
    ]);
  });

  it('reports a name used twice, without regard to case', () => {
    const report = validateDocument(
      { platforms: [entry('Alpha'), entry('ALPHA', { profile: 'https://other.test/{username}' })] },
      'mine.json',
    );
    expect(report.problems).toEqual([
      { platform: 'ALPHA', field: '/name', message: expect.stringContaining('duplicate name') },
    ]);
  });

  it('accepts compound signals and refuses a group of nothing but negations', () => {
    const lacks = { all: [{ status: [200] }, { not: { text: 'class="mark"' } }, { text: 'Not found' }] };
    const ok = validateDocument(
      {
        platforms: [
          entry('Alpha', {
            detect: { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [lacks] },
          }),
        ],
      },
      'mine.json',
    );
    expect(ok.problems).toEqual([]);
    const bad = validateDocument(
      {
        platforms: [
          entry('Alpha', {
            detect: {
              exists: [{ status: [200] }, { text: 'x' }],
              missing: [{ all: [{ not: { text: 'x' } }, { not: { status: [200] } }] }],
            },
          }),
          entry('Bravo', {
            detect: { exists: [{ status: [200] }, { text: 'x' }], missing: [{ all: [{ status: [404] }] }] },
          }),
          entry('Charlie', {
            detect: {
              exists: [{ status: [200] }, { text: 'x' }],
              missing: [{ all: [{ status: [200] }, { regex: '([' }] }],
            },
          }),
        ],
      },
      'mine.json',
    );
    expect(bad.problems.map((p) => `${p.platform} ${p.field}: ${p.message}`)).toEqual([
      'Alpha /detect/missing/0: a compound signal needs at least one part that is not a {not}',
      expect.stringMatching(/^Bravo \/detect\/missing\/0: must be exactly one of .*\{all\}/),
      expect.stringMatching(/^Charlie \/detect\/missing\/0: regex does not compile/),
    ]);
  });
});

describe('catalogue validate: rules that cannot tell on their own', () => {
  const softMissing = { exists: [{ status: [200] }], missing: [{ text: 'No such user' }] };

  it('refuses a status-alone exists side when no missing signal gives another status', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Soft', { detect: softMissing }),
          entry('Soft But Disabled', { detect: softMissing, enabled: false, disabledReason: 'test' }),
          entry('Marker', {
            detect: { ...softMissing, exists: [{ status: [200] }, { text: 'data-profile' }] },
          }),
          entry('Status', {
            detect: { exists: [{ status: [200] }], missing: [{ status: [404] }, { text: 'gone' }] },
          }),
          entry('Lacking', {
            detect: {
              exists: [{ all: [{ status: [200] }, { not: { text: 'No such user' } }] }],
              missing: [{ text: 'No such user' }],
            },
          }),
          entry('Grouped', {
            detect: {
              exists: [{ status: [200] }],
              missing: [{ all: [{ status: [200] }, { text: 'gone' }] }],
            },
          }),
          entry('Redirect', { detect: { exists: [{ status: [200] }], missing: [{ redirect: '/login' }] } }),
          entry('Followed', {
            check: { redirects: 'follow' },
            detect: { exists: [{ status: [200] }], missing: [{ redirect: '/login' }] },
          }),
        ],
      },
      'mine.json',
    );
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Soft /detect/exists',
      'Lacking /detect/exists',
      'Grouped /detect/exists',
      'Followed /detect/exists',
    ]);
    expect(report.problems[0]!.message).toContain('add a body, JSON, header or redirect signal to exists');
  });

  it('accepts the page naming the account as a marker of a profile, not the status alone', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Named', {
            detect: { ...softMissing, exists: [{ status: [200] }, { text: '/u/{username}"' }] },
          }),
          entry('Bare Name', {
            detect: { ...softMissing, exists: [{ status: [200] }, { text: '{username}' }] },
          }),
          entry('Named Hit Only', {
            detect: { exists: [{ status: [200] }, { text: '>{username}</h1>' }], missing: [] },
          }),
          entry('Soft', { detect: softMissing }),
        ],
      },
      'mine.json',
    );
    // The bare name is refused at load: a short or common name is a word of any page.
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Bare Name /detect/exists/1',
      'Soft /detect/exists',
    ]);
    expect(report.problems[0]!.message).toContain('needs a character no name holds');
    expect(report.problems[1]!.message).toContain(
      'the page naming the account: {"text": "/u/{username}\\""}',
    );
  });

  it('accepts a hit-only entry (an empty missing), but not one whose exists is status alone', () => {
    const report = validateDocument(
      {
        platforms: [
          entry('Marker Only', {
            detect: { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] },
          }),
          entry('Status Only', { detect: { exists: [{ status: [200] }], missing: [] } }),
          entry('Nothing Known', {
            detect: { exists: [{ text: 'class="mark"' }], missing: [] },
            known: { claimed: ['alice'], unclaimed: [] },
          }),
          entry('No Exists', { detect: { exists: [], missing: [] } }),
        ],
      },
      'mine.json',
    );
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Nothing Known /known/unclaimed',
      'No Exists /detect/exists',
      'Status Only /detect/exists',
    ]);
    expect(report.problems[2]!.message).toMatch(/^exists is status 200 alone on a hit-only entry/);
    expect(report.valid).toBe(2);
  });

  it('refuses a missing side that says only what the page lacks, and points to hit-only', () => {
    const marker = { text: 'class="profile"' };
    const lacking = { all: [{ status: [200] }, { not: marker }] };
    const report = validateDocument(
      {
        platforms: [
          entry('Absent Marker', { detect: { exists: [{ status: [200] }, marker], missing: [lacking] } }),
          entry('Absent Or Same Status', {
            detect: { exists: [{ status: [200] }, marker], missing: [lacking, { status: [200] }] },
          }),
          entry('Absent Or 404', {
            detect: { exists: [{ status: [200] }, marker], missing: [lacking, { status: [404] }] },
          }),
          entry('Absent Or Its Text', {
            detect: {
              exists: [{ status: [200] }, marker],
              missing: [{ all: [{ status: [200] }, { text: 'Not found' }] }],
            },
          }),
          entry('Redirect Then 404', {
            detect: { exists: [{ redirect: '/athletes/' }], missing: [{ status: [404] }] },
          }),
          entry('Hit Only', { detect: { exists: [{ status: [200] }, marker], missing: [] } }),
        ],
      },
      'mine.json',
    );
    expect(report.problems.map((p) => `${p.platform} ${p.field}`)).toEqual([
      'Absent Marker /detect/missing',
      'Absent Or Same Status /detect/missing',
    ]);
    expect(report.problems[0]!.message).toMatch(
      /^missing only says what the page lacks: .*hit-only \(an empty missing\)$/,
    );
  });

  it("refuses one that WhatsMyName's record for the same address contradicts", () => {
    const references = referenceEntries('whatsmyname', {
      sites: [
        {
          name: 'Same Code',
          uri_check: 'http://www.same.test/u/{account}',
          e_code: 200,
          e_string: 'profile',
          m_code: 200,
          m_string: 'No such user',
          known: ['alice'],
          cat: 'social',
        },
        {
          name: 'Other Address',
          uri_check: 'https://other.test/api/{account}',
          e_code: 200,
          e_string: 'profile',
          m_code: 200,
          m_string: 'No such user',
          known: ['alice'],
          cat: 'social',
        },
      ],
    });
    const report = validateDocument(
      {
        platforms: [
          entry('Same', { profile: 'https://same.test/u/{username}' }),
          entry('Other', { profile: 'https://other.test/u/{username}' }),
        ],
      },
      'mine.json',
      references,
    );
    expect(report.problems).toEqual([
      {
        platform: 'Same',
        field: '/detect/exists',
        message: expect.stringContaining(
          'WhatsMyName records status 200 for a missing account at this address',
        ),
      },
    ]);
  });

  it.skipIf(!referenceDir())(
    "finds nothing in the built-in catalogue that WhatsMyName's records contradict",
    () => {
      const report = validateFile(undefined, referenceDir());
      expect(report.problems).toEqual([]);
    },
  );
});
