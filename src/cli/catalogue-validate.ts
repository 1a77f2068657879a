/**
 * `userscout catalogue validate [FILE] [--reference DIR]`: prints every problem
 * of a catalogue (the built-in one when no file is given) and exits non-zero
 * when there is any. Beyond the loader's checks it refuses rules that cannot
 * tell on their own (status-alone.ts), with WhatsMyName's records from the
 * reference folder when one is given.
 */
import { readFileSync } from 'node:fs';
import { readBuiltinDocument } from '../catalogue/builtin.js';
import { counterpartsOf, indexReferences, type ReferenceEntry } from '../catalogue/counterparts.js';
import { type CatalogueProblem, loadCatalogue, parseCatalogueText } from '../catalogue/loader.js';
import { mergeCatalogues } from '../catalogue/merge.js';
import type { Platform } from '../catalogue/platform.js';
import { readReferenceLists } from '../catalogue/reference-lists.js';
import type { PlatformSpec } from '../catalogue/schema.js';
import { absenceAloneProblem, statusAloneProblem } from '../catalogue/status-alone.js';

export interface ValidateReport {
  readonly source: string;
  readonly entries: number;
  readonly valid: number;
  readonly problems: readonly CatalogueProblem[];
}

export function validateDocument(
  doc: unknown,
  source: string,
  references: readonly ReferenceEntry[] = [],
): ValidateReport {
  const { catalogue, problems } = loadCatalogue(doc);
  const specs = Array.isArray((doc as { platforms?: unknown[] }).platforms)
    ? (doc as { platforms: unknown[] }).platforms
    : [];
  const loaded = new Set(catalogue.platforms.map((p) => p.name));
  const valid = specs.filter(
    (s): s is PlatformSpec =>
      typeof s === 'object' && s !== null && loaded.has(String((s as { name?: unknown }).name).trim()),
  );
  return {
    source,
    entries: specs.length,
    valid: catalogue.platforms.length,
    problems: [
      ...problems,
      ...sameAddressProblems(valid),
      ...statusAloneProblems(catalogue.platforms, references),
    ],
  };
}

/** Entries whose exists side is a status that a missing account also answers with, or whose missing side names nothing of a not-found page. */
function statusAloneProblems(
  platforms: readonly Platform[],
  references: readonly ReferenceEntry[],
): CatalogueProblem[] {
  const index = indexReferences(references.filter((r) => r.recordedMissing));
  const out: CatalogueProblem[] = [];
  // A disabled platform is never searched, so it cannot give a false hit.
  for (const platform of platforms.filter((p) => p.enabled)) {
    const recorded = counterpartsOf(platform, index)
      .filter((c) => c.match === 'address')
      .flatMap((c) => c.recordedMissing ?? []);
    const message = statusAloneProblem(platform, recorded);
    if (message) out.push({ platform: platform.name, field: '/detect/exists', message });
    const absence = absenceAloneProblem(platform);
    if (absence) out.push({ platform: platform.name, field: '/detect/missing', message: absence });
  }
  return out;
}

/** Two entries that check the same address are one platform written twice (the loader reports equal names). */
function sameAddressProblems(specs: readonly PlatformSpec[]): CatalogueProblem[] {
  const { dropped } = mergeCatalogues([{ source: 'this file', document: { platforms: [...specs] } }]);
  return dropped
    .filter((d) => d.reason.startsWith('checks the same address'))
    .map((d) => ({
      platform: d.name,
      field: '/check/url',
      message: d.reason.replace(' (from this file)', ''),
    }));
}

/** `referenceDir`: the folder of the public site lists, to check against WhatsMyName's records too. */
export function validateFile(file: string | undefined, referenceDir?: string): ValidateReport {
  const references = referenceDir ? readReferenceLists(referenceDir) : [];
  if (!file) return validateDocument(readBuiltinDocument(), 'built-in catalogue', references);
  return validateDocument(parseCatalogueText(readFileSync(file, 'utf8'), file), file, references);
}

export function formatValidateReport(report: ValidateReport): string {
  const lines = report.problems.map((p) => `${p.platform}${p.field ? ` ${p.field}` : ''}: ${p.message}`);
  lines.push(
    `${report.source}: ${report.entries} entries, ${report.valid} valid, ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`,
  );
  return lines.join('\n');
}
