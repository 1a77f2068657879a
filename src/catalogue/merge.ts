/**
 * Merges catalogues in our format into one. Pure. Two entries are the same
 * platform when they check the same address (host without regard to case or scheme,
 * placeholder and trailing slash normalised, and the body for a POST) or carry
 * the same name (without regard to case), or names that give the same id (the
 * loader refuses a second entry of one id), or one names a host of the other as its
 * other host (`otherHosts`: the loader refuses an entry whose other host is a host
 * of another enabled entry). The first occurrence wins and every entry dropped says why.
 */
import { heldHosts, specHostFields } from './hosts.js';
import { specCheckUrl } from './normalise.js';
import { platformId } from './platform.js';
import type { PlatformSpec } from './schema.js';
import { PLACEHOLDER, splitAuthority } from './template.js';

export interface MergeInput {
  /** Where the document came from (a file name), quoted in drop reasons. */
  readonly source: string;
  readonly document: { platforms: PlatformSpec[]; shields?: unknown[] };
}

export interface MergeDrop {
  readonly name: string;
  readonly source: string;
  readonly reason: string;
}

export interface MergeResult {
  readonly document: { platforms: PlatformSpec[]; shields?: unknown[] };
  readonly dropped: readonly MergeDrop[];
}

export function mergeCatalogues(docs: readonly MergeInput[]): MergeResult {
  const platforms: PlatformSpec[] = [];
  const dropped: MergeDrop[] = [];
  const byName = new Map<string, { name: string; source: string }>();
  const byCheck = new Map<string, { name: string; source: string }>();
  const byId = new Map<string, { name: string; source: string }>();
  // The hosts of kept enabled entries (their own and other), and the other hosts of every kept entry.
  const byHost = new Map<string, { name: string; source: string }>();
  const byOtherHost = new Map<string, { name: string; source: string }>();
  for (const { source, document } of docs) {
    for (const spec of document.platforms) {
      const name = spec.name.trim();
      const sameName = byName.get(name.toLowerCase());
      if (sameName) {
        dropped.push({ name, source, reason: `same name as ${describe(sameName)}` });
        continue;
      }
      const id = platformId(spec.name, spec.home);
      const sameId = byId.get(id);
      if (sameId) {
        dropped.push({ name, source, reason: `same id (${id}) as ${describe(sameId)}` });
        continue;
      }
      const key = checkKey(spec);
      const sameCheck = byCheck.get(key);
      if (sameCheck) {
        dropped.push({ name, source, reason: `checks the same address as ${describe(sameCheck)}: ${key}` });
        continue;
      }
      const { hosts, others } = hostsOfSpec(spec);
      const borrowed = others.find((host) => byHost.has(host));
      if (borrowed !== undefined) {
        dropped.push({
          name,
          source,
          reason: `names ${borrowed} as its other host, a host of ${describe(byHost.get(borrowed)!)}`,
        });
        continue;
      }
      const lent = hosts.find((host) => byOtherHost.has(host));
      if (lent !== undefined) {
        dropped.push({
          name,
          source,
          reason: `is at ${lent}, which ${describe(byOtherHost.get(lent)!)} names as its other host`,
        });
        continue;
      }
      const kept = { name, source };
      byName.set(name.toLowerCase(), kept);
      byCheck.set(key, kept);
      byId.set(id, kept);
      for (const host of hosts) if (!byHost.has(host)) byHost.set(host, kept);
      for (const host of others) if (!byOtherHost.has(host)) byOtherHost.set(host, kept);
      platforms.push(spec);
    }
  }
  const shields = mergeShields(docs);
  return { document: shields.length > 0 ? { platforms, shields } : { platforms }, dropped };
}

/**
 * The hosts an entry holds as the loader reads them for clashes of other hosts: none when
 * disabled (only an enabled entry's hosts clash), else its fixed own hosts and its other
 * hosts; and its other hosts, enabled or not.
 */
function hostsOfSpec(spec: PlatformSpec): { hosts: string[]; others: readonly string[] } {
  const fields = specHostFields(spec);
  return { hosts: [...new Set(heldHosts(fields).map((h) => h.host))], others: fields.otherHosts };
}

function describe(first: { name: string; source: string }): string {
  return `${first.name} (from ${first.source})`;
}

/**
 * The identity of a check: method, host (lower-case), path and query with the
 * placeholder written `{}`, no trailing slash, no fragment (never sent), and
 * the body of a POST, since one API address can check different things.
 */
export function checkKey(spec: Pick<PlatformSpec, 'profile' | 'check'>): string {
  const template = specCheckUrl(spec);
  const method = spec.check?.method ?? 'GET';
  const parts = splitAuthority(template);
  const normalise = (text: string) => text.split(PLACEHOLDER).join('{}');
  let address: string;
  if (parts) {
    const host = normalise(parts.origin.replace(/^https?:\/\//i, '')).toLowerCase();
    const rest = normalise(parts.rest.split('#')[0] ?? '');
    const [path = '', query] = splitOnce(rest, '?');
    const trimmedPath = path.replace(/\/+$/, '');
    address = `${host}${trimmedPath}${query === undefined ? '' : `?${query}`}`;
  } else {
    address = normalise(template);
  }
  const body = method === 'POST' && spec.check?.body !== undefined ? ` ${normalise(spec.check.body)}` : '';
  // GET and HEAD of one address ask the same question.
  return `${method === 'POST' ? 'POST ' : ''}${address}${body}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Shield fingerprints of every input, the first of each name. */
function mergeShields(docs: readonly MergeInput[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const { document } of docs) {
    for (const shield of document.shields ?? []) {
      const name = (shield as { name?: unknown })?.name;
      const key = typeof name === 'string' ? name.toLowerCase() : JSON.stringify(shield);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(shield);
    }
  }
  return out;
}
