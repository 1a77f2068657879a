/** Catalogue files are JSON: a syntax error names the file it is in. */
import { CatalogueError } from '../errors.js';

/** Parses JSON text; a syntax error names the source. */
export function parseCatalogueText(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogueError(`${source} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}
