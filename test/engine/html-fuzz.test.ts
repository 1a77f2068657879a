/**
 * Random and adversarial pages (test/support/random-html.ts) through profile
 * extraction, the control's page title and classification: each returns, and
 * what it returns keeps its limits. Seeded: a failure names its case and
 * comes back on the next run.
 */
import { describe, expect, it } from 'vitest';
import { pageTitle } from '../../src/engine/controls/control.js';
import { classify, finalVerdict } from '../../src/engine/verdict/classify.js';
import { SNIPPET_CONTEXT } from '../../src/engine/verdict/evidence-snippet.js';
import { PROFILE_LIMITS, PROFILE_TEXT_FIELDS, PROFILE_URL_FIELDS } from '../../src/engine/verdict/profile.js';
import { extractProfile, PROFILE_READ_CHARS } from '../../src/engine/verdict/profile-extract.js';
import type { ResponseView } from '../../src/engine/verdict/response-view.js';
import { catalogueOf, entry } from '../support/catalogue.js';
import { randomPage, seeded } from '../support/random-html.js';

const CASES = 250;

const catalogue = catalogueOf([
  entry('Generic'),
  entry('Ruled', {
    detect: {
      exists: [{ status: [200] }, { text: 'Alice' }],
      missing: [{ status: [404] }, { text: 'Not found' }],
    },
    extract: {
      fullName: { meta: 'og:title' },
      bio: { json: 'user.bio' },
      followers: { meta: 'followers' },
    } as never, // the schema's type names no field rule (they are built from a list)
  }),
]);

const view = (body: string, status = 200): ResponseView => ({
  status,
  headers: { 'content-type': 'text/html' },
  url: 'https://site.test/u/alice',
  redirected: false,
  body,
  complete: true,
});

/** Longest snippet: the marker (cut at 200 characters plus an ellipsis), its context and the brackets. */
const SNIPPET_MAX = 2 * SNIPPET_CONTEXT + 201 + 4;

describe('random and adversarial pages', () => {
  it(`are read without an error, within the limits (${CASES} pages)`, () => {
    const random = seeded(2024);
    for (let n = 0; n < CASES; n++) {
      // Now and then a page past the part read for profile details.
      const page =
        n % 25 === 0 ? randomPage(random).padEnd(PROFILE_READ_CHARS + 10_000, 'x') : randomPage(random);
      const name = `case ${n}`;
      for (const platform of catalogue.platforms) {
        const profile = extractProfile(platform, view(page));
        for (const field of PROFILE_TEXT_FIELDS) {
          const value = profile?.[field];
          if (value === undefined) continue;
          expect(value.length, name).toBeLessThanOrEqual(PROFILE_LIMITS[field]);
          expect(value, name).not.toMatch(/[<\u0000-\u001f]/);
        }
        for (const url of [...PROFILE_URL_FIELDS.map((f) => profile?.[f]), ...(profile?.links ?? [])]) {
          if (url === undefined) continue;
          expect(url, name).toMatch(/^https?:\/\//);
          // Percent-encoding may lengthen what was cut at the limit: at most 9 characters for one.
          expect(url.length, name).toBeLessThanOrEqual(9 * PROFILE_LIMITS.url);
        }
        expect(profile?.links?.length ?? 0, name).toBeLessThanOrEqual(PROFILE_LIMITS.links);
        if (profile?.followers !== undefined) expect(Number.isInteger(profile.followers), name).toBe(true);

        for (const status of [200, 404]) {
          const decision = classify(platform, view(page, status), catalogue.shields);
          expect(decision === 'pending' ? decision : decision.status, name).toMatch(/^(hit|miss|unknown)$/);
          const verdict = finalVerdict(platform, view(page, status), catalogue.shields);
          if (verdict.snippet !== undefined)
            expect(verdict.snippet.length, name).toBeLessThanOrEqual(SNIPPET_MAX);
        }
      }
      const title = pageTitle(page);
      if (title !== undefined) expect(title, name).not.toMatch(/\s\s|^\s|\s$/);
    }
  });
});
