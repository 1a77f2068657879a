/**
 * Families: the rules many sites share because they run the same software. An
 * entry that names its `family` takes the family's profile, check, detect,
 * username and extract rules, with `{home}` standing for its home address, and
 * its tags; any of those the entry gives itself wins. Expanded before an entry is
 * validated, so a family's entry is checked as any other. Pure.
 */
import type { CatalogueProblem } from './loader.js';
import type { FamilySpec } from './schema.js';

/** Where a family's templates take the entry's home address (ending in `/`). */
const HOME = '{home}';

/** `value` with `{home}` replaced by `home`, in every string it holds. */
function atHome<T>(value: T, home: string): T {
  if (typeof value === 'string') return value.split(HOME).join(home) as T;
  if (Array.isArray(value)) return value.map((v) => atHome(v, home)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, atHome(v, home)])) as T;
  return value;
}

/**
 * Each entry that names a family, with the family's rules filled in (its own win); others as
 * they are. An entry naming an unknown family, or without a home address, is a problem, and
 * undefined in its place (so the entries after it keep their index).
 */
export function expandFamilies(
  platforms: readonly unknown[],
  families: ReadonlyMap<string, FamilySpec>,
): { platforms: unknown[]; problems: CatalogueProblem[] } {
  const out: unknown[] = [];
  const problems: CatalogueProblem[] = [];
  platforms.forEach((entry, index) => {
    if (entry === null || typeof entry !== 'object' || !('family' in entry)) {
      out.push(entry);
      return;
    }
    const { family: id, ...own } = entry as Record<string, unknown> & { family: unknown };
    const label = typeof own.name === 'string' && own.name !== '' ? own.name : `#${index}`;
    const family = typeof id === 'string' ? families.get(id) : undefined;
    if (!family) {
      problems.push({
        platform: label,
        field: '/family',
        message: `no family "${String(id)}" (known: ${[...families.keys()].join(', ') || 'none'})`,
      });
      out.push(undefined);
      return;
    }
    if (typeof own.home !== 'string' || !/^https?:\/\//.test(own.home)) {
      problems.push({
        platform: label,
        field: '/home',
        message: `an entry of family "${family.id}" needs its home address`,
      });
      out.push(undefined);
      return;
    }
    const home = own.home.endsWith('/') ? own.home : `${own.home}/`;
    const { id: _id, description: _description, tags: familyTags = [], notes, ...rules } = family;
    const tags = [...new Set([...familyTags, ...((own.tags as string[] | undefined) ?? [])])];
    out.push({
      ...atHome(rules, home),
      ...(notes === undefined ? {} : { notes }),
      ...own,
      ...(tags.length > 0 ? { tags } : {}),
    });
  });
  return { platforms: out, problems };
}
