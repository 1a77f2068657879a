/**
 * `userscout catalogue audit` on small synthetic fixtures (test/fixtures/audit:
 * a catalogue of ours and one tiny list in each upstream format).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { auditCatalogue } from '../../src/catalogue/audit.js';
import { referenceEntries } from '../../src/catalogue/reference-lists.js';
import { formatAudit, runAudit } from '../../src/cli/catalogue-audit.js';
import { isUserscoutError } from '../../src/errors.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/audit/', import.meta.url));
const options = { reference: `${FIXTURES}reference`, catalogue: `${FIXTURES}catalogue.json` };

describe('catalogue audit', () => {
  const report = runAudit(options);

  it('finds counterparts on the same address (scheme and www. aside) and on the same host', () => {
    const byName = new Map(report.platforms.map((p) => [p.platform, p]));
    expect(byName.get('Alpha')!.counterparts.map((c) => [c.source, c.name, c.match])).toEqual([
      ['whatsmyname', 'Alpha Site', 'address'],
      ['sherlock', 'Alpha', 'address'],
    ]);
    expect(byName.get('Bravo')!.counterparts.map((c) => [c.source, c.name, c.match])).toEqual([
      ['whatsmyname', 'Bravo API', 'host'],
    ]);
    expect(byName.get('Charlie')!.counterparts.map((c) => [c.source, c.match])).toEqual([
      ['maigret', 'address'],
    ]);
    expect(byName.get('Delta')!.counterparts).toEqual([]);
  });

  it('lists each disagreement with both sides, and none where the rules agree', () => {
    const rows = report.platforms.flatMap((p) =>
      p.counterparts.flatMap((c) =>
        c.disagreements.map((d) => ({ platform: p.platform, source: c.source, ...d })),
      ),
    );
    expect(rows).toEqual([
      // A missing Alpha account answers 410 in WhatsMyName's record; ours expects 404.
      { platform: 'Alpha', source: 'whatsmyname', field: 'missing status', ours: '404', theirs: '410' },
      // Sherlock's HEAD is the same question as our GET; its username rule is narrower.
      {
        platform: 'Alpha',
        source: 'sherlock',
        field: 'username rule',
        ours: '^[a-z0-9]{3,12}$',
        theirs: '^[a-z]{3,12}$',
      },
      {
        platform: 'Bravo',
        source: 'whatsmyname',
        field: 'check URL',
        ours: 'https://bravo.test/{username}',
        theirs: 'https://bravo.test/api/users/{username}',
      },
    ]);
  });

  it('summarises', () => {
    expect(report.summary).toEqual({
      platforms: 4,
      sameAddress: 2,
      sameHostOnly: 1,
      noCounterpart: 1,
      bySource: { whatsmyname: 2, sherlock: 1, maigret: 1 },
      byField: {
        'check URL': 1,
        method: 0,
        'exists status': 0,
        'missing status': 1,
        'exists markers': 0,
        'missing markers': 0,
        'username rule': 1,
      },
      departsFromAll: [],
    });
  });

  it('prints a table and its summary, or JSON', () => {
    const table = formatAudit(report, 'table').split('\n');
    expect(table[0]).toMatch(/^PLATFORM +COUNTERPART +MATCH +FIELD +OURS +THEIRS$/);
    expect(table[1]).toMatch(/^Alpha +whatsmyname: Alpha Site +address +missing status +404 +410$/);
    expect(table).toContain(
      'audit: 4 platforms; 2 with a counterpart on the same address, 1 on the same host only, 1 with none',
    );
    expect(formatAudit(report, 'table', true).split('\n')[0]).toMatch(/^audit: 4 platforms/);
    const json = JSON.parse(formatAudit(report, 'json'));
    expect(Object.keys(json)).toEqual(['summary', 'platforms']);
    expect(json.platforms).toHaveLength(4);
    expect(Object.keys(JSON.parse(formatAudit(report, 'json', true)))).toEqual(['summary']);
  });

  it('names a platform that departs from every counterpart on its address', () => {
    const references = referenceEntries('whatsmyname', {
      sites: [
        {
          name: 'Echo',
          uri_check: 'https://echo.test/u/{account}',
          e_code: 200,
          e_string: 'profile',
          m_code: 200,
          m_string: 'No such user',
          known: ['alice'],
          cat: 'social',
        },
      ],
    });
    const ours = catalogueOf([
      entry('Echo', {
        detect: { exists: [{ status: [200] }, { text: 'profile' }], missing: [{ status: [404] }] },
      }),
    ]);
    const audit = auditCatalogue(ours.platforms, references);
    expect(audit.summary.departsFromAll).toEqual(['Echo']);
    expect(audit.platforms[0]!.counterparts[0]!.disagreements).toEqual([
      { field: 'missing status', ours: '404', theirs: '200' },
      { field: 'missing markers', ours: '-', theirs: '"No such user"' },
    ]);
  });

  it('refuses a folder with none of the lists', () => {
    let caught: unknown;
    try {
      runAudit({ reference: FIXTURES, catalogue: options.catalogue });
    } catch (error) {
      caught = error;
    }
    expect(isUserscoutError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/No reference list in /);
  });
});
