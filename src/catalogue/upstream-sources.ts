/**
 * The names of the public site lists `userscout catalogue sync` can fetch: a closed
 * list in a module importing nothing, so the command line can offer it without
 * loading the importers.
 */
export const UPSTREAM_SOURCES = ['whatsmyname', 'sherlock', 'maigret'] as const;
export type UpstreamSource = (typeof UPSTREAM_SOURCES)[number];

export function isUpstreamSource(value: string): value is UpstreamSource {
  return (UPSTREAM_SOURCES as readonly string[]).includes(value);
}
