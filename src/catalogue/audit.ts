/**
 * The catalogue audit: for each of our platforms, where the public site lists
 * (WhatsMyName, Sherlock, Maigret; see counterparts.ts) check the same site
 * differently. A counterpart on the same address is compared rule by rule
 * (method, status codes, markers, username rule); one on the same host but
 * another address only by its check URL, since its answers are other pages.
 * Pure: it lists disagreements and judges nothing.
 */
import {
  type Counterpart,
  counterpartsOf,
  indexReferences,
  REFERENCE_SOURCES,
  type ReferenceEntry,
  type ReferenceSource,
} from './counterparts.js';
import type { BasicSignal, Platform, Signal } from './platform.js';

export const AUDIT_FIELDS = [
  'check URL',
  'method',
  'exists status',
  'missing status',
  'exists markers',
  'missing markers',
  'username rule',
] as const;

export type AuditField = (typeof AUDIT_FIELDS)[number];

export interface Disagreement {
  readonly field: AuditField;
  readonly ours: string;
  readonly theirs: string;
}

export interface CounterpartAudit {
  readonly source: ReferenceSource;
  readonly name: string;
  readonly match: Counterpart['match'];
  readonly disagreements: readonly Disagreement[];
}

export interface PlatformAudit {
  readonly platform: string;
  readonly enabled: boolean;
  readonly counterparts: readonly CounterpartAudit[];
}

export interface AuditSummary {
  readonly platforms: number;
  /** Platforms with a counterpart on the same address in at least one list. */
  readonly sameAddress: number;
  /** Platforms whose counterparts are all on another address of the same host. */
  readonly sameHostOnly: number;
  readonly noCounterpart: number;
  /** Counterparts found, by list. */
  readonly bySource: Readonly<Record<ReferenceSource, number>>;
  /** Disagreements, by field. */
  readonly byField: Readonly<Record<AuditField, number>>;
  /** Platforms with same-address counterparts that every one of them disagrees with on the method or a status. */
  readonly departsFromAll: readonly string[];
}

export interface AuditReport {
  readonly summary: AuditSummary;
  readonly platforms: readonly PlatformAudit[];
}

/** The fields where a departure changes outcomes by itself (markers often differ for good reasons). */
const DECISIVE: readonly AuditField[] = ['method', 'exists status', 'missing status'];

/** A status list names specific codes when it is short; longer ones are "any success" or "any error" rules. */
const SPECIFIC_STATUSES = 3;

export function auditCatalogue(
  ours: readonly Platform[],
  references: readonly ReferenceEntry[],
): AuditReport {
  const index = indexReferences(references);
  const platforms = ours.map(
    (platform): PlatformAudit => ({
      platform: platform.name,
      enabled: platform.enabled,
      counterparts: counterpartsOf(platform, index).map((c) => ({
        source: c.source,
        name: c.platform.name,
        match: c.match,
        disagreements: compare(platform, c),
      })),
    }),
  );
  return { summary: summarise(platforms), platforms };
}

function summarise(platforms: readonly PlatformAudit[]): AuditSummary {
  const bySource = Object.fromEntries(REFERENCE_SOURCES.map((s) => [s, 0])) as Record<
    ReferenceSource,
    number
  >;
  const byField = Object.fromEntries(AUDIT_FIELDS.map((f) => [f, 0])) as Record<AuditField, number>;
  let sameAddress = 0;
  let sameHostOnly = 0;
  const departsFromAll: string[] = [];
  for (const p of platforms) {
    for (const c of p.counterparts) {
      bySource[c.source] += 1;
      for (const d of c.disagreements) byField[d.field] += 1;
    }
    const onAddress = p.counterparts.filter((c) => c.match === 'address');
    if (onAddress.length > 0) {
      sameAddress += 1;
      if (onAddress.every((c) => c.disagreements.some((d) => DECISIVE.includes(d.field))))
        departsFromAll.push(p.platform);
    } else if (p.counterparts.length > 0) sameHostOnly += 1;
  }
  return {
    platforms: platforms.length,
    sameAddress,
    sameHostOnly,
    noCounterpart: platforms.length - sameAddress - sameHostOnly,
    bySource,
    byField,
    departsFromAll,
  };
}

function compare(ours: Platform, theirs: Counterpart): Disagreement[] {
  const out: Disagreement[] = [];
  const add = (field: AuditField, a: string, b: string) => out.push({ field, ours: a, theirs: b });
  if (theirs.match === 'host') {
    add('check URL', ours.check.url, theirs.platform.check.url);
    return out;
  }
  const other = theirs.platform;
  // GET and HEAD ask the same question (merge.ts checkKey); a POST asks another.
  if ((ours.check.method === 'POST') !== (other.check.method === 'POST'))
    add('method', ours.check.method, other.check.method);

  const statuses = (side: 'exists' | 'missing', platform: Platform, extra: readonly number[] = []) =>
    [...new Set([...platform.detect[side].flatMap(statusesOf), ...extra])].sort((a, b) => a - b);
  for (const side of ['exists', 'missing'] as const) {
    const a = statuses(side, ours);
    const b = statuses(side, other, side === 'missing' ? (theirs.recordedMissing ?? []) : []);
    const ma = markersOf(ours.detect[side]);
    const mb = markersOf(other.detect[side]);
    // Their missing page, whatever its status, is read as missing here by the same marker alone.
    const anyStatus =
      side === 'missing' &&
      markersOf(ours.detect.missing.filter((s) => s.kind !== 'all')).some((m) => mb.includes(m));
    if (!anyStatus && statusesDisagree(a, b)) add(`${side} status`, list(a), list(b));
    if (mb.length > 0 && !mb.some((m) => ma.includes(m))) add(`${side} markers`, list(ma), list(mb));
  }
  const pa = ours.username.pattern?.source;
  const pb = other.username.pattern?.source;
  if (pa !== undefined && pb !== undefined && pa !== pb) add('username rule', pa, pb);
  return out;
}

/**
 * Status lists disagree when they share no code, or when the other names a
 * specific code (a short list) that ours does not take. A long list such as
 * "any 2xx" or "any client error" says no more than the codes it shares.
 */
function statusesDisagree(ours: readonly number[], theirs: readonly number[]): boolean {
  if (ours.length === 0 || theirs.length === 0) return false;
  if (!theirs.some((c) => ours.includes(c))) return true;
  return theirs.length <= SPECIFIC_STATUSES && theirs.some((c) => !ours.includes(c));
}

function partsOf(signal: Signal): readonly BasicSignal[] {
  return signal.kind === 'all' ? signal.parts.flatMap((p) => (p.kind === 'not' ? [] : [p])) : [signal];
}

function statusesOf(signal: Signal): number[] {
  return partsOf(signal).flatMap((p) => (p.kind === 'status' ? [...p.codes] : []));
}

/** Body markers, as written: texts, regex sources, JSON paths. */
function markersOf(signals: readonly Signal[]): string[] {
  return signals.flatMap(partsOf).flatMap((p) => {
    if (p.kind === 'text' || p.kind === 'name') return [p.text];
    if (p.kind === 'regex') return [`/${p.re.source}/`];
    if (p.kind === 'json') return [`json ${p.path.join('.')}`];
    return [];
  });
}

function list(items: readonly (string | number)[]): string {
  return items.length === 0
    ? '-'
    : items.map((i) => (typeof i === 'string' ? JSON.stringify(i) : i)).join(' ');
}
