import { readShieldsDocument } from '../../src/catalogue/builtin.js';
import { loadCatalogue } from '../../src/catalogue/loader.js';
import type { Catalogue, Platform } from '../../src/catalogue/platform.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';

/** A catalogue from inline entries, with the built-in shield fingerprints; fails the test on any problem. */
export function catalogueOf(platforms: PlatformSpec[], withShields = true): Catalogue {
  const { catalogue, problems } = loadCatalogue({
    platforms,
    shields: withShields ? readShieldsDocument() : [],
  });
  if (problems.length > 0) throw new Error(`test catalogue has problems: ${JSON.stringify(problems)}`);
  return catalogue;
}

export function entry(name: string, overrides: Partial<PlatformSpec> = {}): PlatformSpec {
  const host = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.test`;
  return {
    name,
    category: 'social',
    home: `https://${host}/`,
    profile: `https://${host}/u/{username}`,
    detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
    known: { claimed: ['alice'], unclaimed: ['nobody-here-7'] },
    ...overrides,
  };
}

/** The platform of `catalogue` named `name`; a test naming one it lacks fails here, saying which. */
export function platformNamed(catalogue: Catalogue, name: string): Platform {
  const found = catalogue.platforms.find((p) => p.name === name);
  if (!found) throw new Error(`no platform named ${name}`);
  return found;
}
