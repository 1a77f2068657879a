/**
 * Reads a catalogue file in any supported format (what `--catalogue FILE` uses):
 * parse, detect the format, import, load. Every failure that makes the file
 * unusable is a CatalogueError naming the file.
 */
import { readFileSync } from 'node:fs';
import { CatalogueError } from '../errors.js';
import { detectFormat, importCatalogue, UNKNOWN_FORMAT_MESSAGE } from './importers/index.js';
import type { CatalogueFormat, ImportRejection } from './importers/types.js';
import { type CatalogueProblem, type LoadResult, loadCatalogue, parseCatalogueText } from './loader.js';
import { platformId } from './platform.js';
import type { PlatformSpec } from './schema.js';

export interface CatalogueFileResult {
  readonly format: CatalogueFormat;
  /** Entries in the file. */
  readonly entries: number;
  /** Platforms that loaded. */
  readonly imported: number;
  /** Entries left out, by the importer or by the loader, each with the reason. */
  readonly rejected: readonly ImportRejection[];
  readonly load: LoadResult;
  /** The file in our format, holding exactly the platforms and shields that loaded. */
  readonly document: { platforms: PlatformSpec[]; shields?: unknown[] };
}

export function readCatalogueFile(path: string): CatalogueFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CatalogueError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  return readCatalogueText(text, path);
}

/** The same, from text already read; `source` names it in messages. */
export function readCatalogueText(text: string, source: string): CatalogueFileResult {
  const doc = parseCatalogueText(text, source);
  const format = detectFormat(doc);
  if (format === undefined) throw new CatalogueError(`${source} ${UNKNOWN_FORMAT_MESSAGE}`);
  const imported = importCatalogue(doc);
  let load: LoadResult;
  try {
    load = loadCatalogue(imported.document);
  } catch (error) {
    if (!(error instanceof CatalogueError)) throw error;
    throw new CatalogueError(`${source}: ${error.message}`, { cause: error });
  }
  const refused = platformProblems(load.problems);
  const { platforms: specs, shields } = imported.document;
  const platforms = refused.length === 0 ? specs : loadableSpecs(specs, load);
  const badShield = load.problems.some((p) => p.platform.startsWith('shield '));
  const document = {
    platforms,
    ...(shields === undefined ? {} : { shields: badShield ? loadableShields(shields) : shields }),
  };
  return {
    format,
    entries: imported.entries,
    imported: load.catalogue.platforms.length,
    rejected: [...imported.rejected, ...refused],
    load,
    document,
  };
}

/**
 * The entries the loader keeps, as written (a document keeping the others would not load as
 * it was read): those whose names the loaded catalogue holds, so the loader's rules across
 * entries decide (an other host another entry has), each valid on its own, the first of
 * equal names and the first of equal ids.
 */
function loadableSpecs(specs: readonly PlatformSpec[], load: LoadResult): PlatformSpec[] {
  const loaded = new Set(load.catalogue.platforms.map((p) => p.name));
  const seenNames = new Set<string>();
  const seenIds = new Set<string>();
  return specs.filter((spec) => {
    if (!loaded.has(spec.name)) return false;
    if (loadCatalogue({ platforms: [spec] }).problems.length > 0) return false;
    const key = spec.name.trim().toLowerCase();
    const id = platformId(spec.name, spec.home);
    if (seenNames.has(key) || seenIds.has(id)) return false;
    seenNames.add(key);
    seenIds.add(id);
    return true;
  });
}

function loadableShields(shields: readonly unknown[]): unknown[] {
  return shields.filter(
    (shield) => loadCatalogue({ platforms: [], shields: [shield] }).problems.length === 0,
  );
}

/** One rejection per refused platform, its problems joined; shield problems are not entries. */
function platformProblems(problems: readonly CatalogueProblem[]): ImportRejection[] {
  const byPlatform = new Map<string, string[]>();
  for (const p of problems) {
    if (p.platform.startsWith('shield ')) continue;
    const list = byPlatform.get(p.platform) ?? [];
    list.push(`${p.field || '/'} ${p.message}`);
    byPlatform.set(p.platform, list);
  }
  return [...byPlatform].map(([name, reasons]) => ({ name, reason: reasons.join('; ') }));
}
