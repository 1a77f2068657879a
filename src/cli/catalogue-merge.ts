/**
 * `userscout catalogue merge A B ... [-o OUT]`: imports each file (any supported
 * format), merges them with the first occurrence winning, and writes the result
 * in our format to OUT or stdout. What was left out, and why, goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { type MergeDrop, type MergeInput, mergeCatalogues } from '../catalogue/merge.js';
import { readCatalogueFile } from '../catalogue/read.js';
import { isUserscoutError } from '../errors.js';

export interface MergeOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** Entries in the merged catalogue. */
  readonly platforms: number;
  readonly dropped: readonly MergeDrop[];
}

export interface MergeOptions {
  /** Write the merged catalogue here instead of returning it as stdout. */
  readonly output?: string;
}

export function runCatalogueMerge(files: readonly string[], options: MergeOptions = {}): MergeOutcome {
  const inputs: MergeInput[] = [];
  const dropped: MergeDrop[] = [];
  for (const file of files) {
    try {
      const result = readCatalogueFile(file);
      dropped.push(
        ...result.rejected.map((r) => ({
          name: r.name,
          source: file,
          reason: `not importable: ${r.reason}`,
        })),
      );
      inputs.push({ source: file, document: result.document });
    } catch (error) {
      if (!isUserscoutError(error)) throw error;
      // One unusable input would silently shrink the result, so nothing is written.
      return { stdout: '', stderr: `${error.message}\n`, exitCode: 1, platforms: 0, dropped: [] };
    }
  }
  const merged = mergeCatalogues(inputs);
  dropped.push(...merged.dropped);
  const json = `${JSON.stringify(merged.document, null, 2)}\n`;
  if (options.output) writeFileSync(options.output, json);
  const summary = `merged ${files.length} file${files.length === 1 ? '' : 's'}: ${merged.document.platforms.length} platforms, ${dropped.length} dropped${options.output ? `, written to ${options.output}` : ''}`;
  const stderr = [...dropped.map((d) => `dropped ${d.name} (${d.source}): ${d.reason}`), summary].join('\n');
  return {
    stdout: options.output ? '' : json,
    stderr: `${stderr}\n`,
    exitCode: 0,
    platforms: merged.document.platforms.length,
    dropped,
  };
}
