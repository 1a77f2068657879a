/**
 * The public site lists `userscout catalogue sync` can fetch, and the checks a
 * downloaded list must pass before it replaces the stored copy. Pure: the
 * download and the file writing are in src/cli/catalogue-sync.ts.
 */
import { transportErrorReason } from '../engine/transport/transport-error.js';
import { CatalogueError } from '../errors.js';
import { type CatalogueFileResult, readCatalogueText } from './read.js';
import type { UpstreamSource } from './upstream-sources.js';

export { isUpstreamSource, UPSTREAM_SOURCES, type UpstreamSource } from './upstream-sources.js';

/** Each project's list as published on its default branch. */
export const UPSTREAM_URLS: Readonly<Record<UpstreamSource, string>> = {
  whatsmyname: 'https://raw.githubusercontent.com/WebBreacher/WhatsMyName/main/wmn-data.json',
  sherlock:
    'https://raw.githubusercontent.com/sherlock-project/sherlock/master/sherlock_project/resources/data.json',
  maigret: 'https://raw.githubusercontent.com/soxoj/maigret/main/maigret/resources/data.json',
};

/**
 * Parses and imports a downloaded list. It must be in the format of the source
 * it was asked from, and at least one entry must import; otherwise a
 * CatalogueError says why, and nothing should be stored.
 */
export function validateUpstream(text: string, source: UpstreamSource, url: string): CatalogueFileResult {
  const result = readCatalogueText(text, url);
  if (result.format !== source) {
    throw new CatalogueError(`${url} is in the ${result.format} format, not ${source}`);
  }
  if (result.imported === 0) {
    throw new CatalogueError(
      `${url}: none of its ${result.entries} entries can be imported (run: userscout catalogue check FILE)`,
    );
  }
  return result;
}

/** A few words on why a download failed: `connection refused (ECONNREFUSED)`, `host not found`... */
export function describeDownloadFailure(error: unknown): string {
  const code = firstCode(error);
  const suffix = code ? ` (${code})` : '';
  switch (transportErrorReason(error)) {
    case 'dns':
      return `host not found${suffix}`;
    case 'timeout':
      return `no answer in time${suffix}`;
    case 'tls':
      return `TLS failed${suffix}`;
    default:
      return code === 'ECONNREFUSED' ? `connection refused${suffix}` : `connection failed${suffix}`;
  }
}

function firstCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
