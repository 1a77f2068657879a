/**
 * Control checks: a name that cannot exist on a platform is checked
 * like any other, and what it reads tells whether the platform's rule still
 * tells accounts apart. If the control reads `hit`, the rule has drifted: every
 * hit on that platform is `unknown`/`rule_drift` until a later control reads
 * `miss` (on a hit-only platform, which never reads miss: `unknown`/`no_miss_rule`).
 * A hit whose answer cannot be told from the control's is demoted too.
 * Pure: the guard (control-guard.ts) runs the checks and keeps the records.
 */
import RandExp from 'randexp';
import type { Platform } from '../../catalogue/platform.js';
import { ruleViolation } from '../../catalogue/username-rule.js';
import { SAME_LENGTH_BYTES, SAME_LENGTH_SHARE } from '../../tuning.js';
import { walkTags } from '../verdict/html-scan.js';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../verdict/outcome.js';
import { ownCopy } from '../verdict/own-copy.js';
import type { ResponseView } from '../verdict/response-view.js';

/** What a hit is compared with: the parts of an answer that would show two pages are the same page. */
export interface AnswerPrint {
  readonly httpStatus: number;
  readonly finalUrl: string;
  /** Body bytes read. */
  readonly bodyLength: number;
  /** The page's `<title>`, when the body read has one. */
  readonly title?: string;
}

/** One control check's result, and the drift state it leaves (kept in the store, shared by every process). */
export interface ControlRecord {
  readonly platformId: string;
  /** The egress identity it went through: a site may answer each address differently. */
  readonly identity: string;
  /** The control name. */
  readonly username: string;
  readonly status: OutcomeStatus;
  readonly reason?: OutcomeReason;
  /** The rule that decided the control's outcome. */
  readonly rule: string;
  readonly answer?: AnswerPrint;
  /** The rule has drifted: set by a control that reads `hit`, cleared only by one that reads `miss`. */
  readonly drift: boolean;
  /** When the control was checked (ms epoch). */
  readonly checkedAt: number;
}

/** The control name's length when the platform's rule allows it. */
const CONTROL_LENGTH = 16;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';

const TITLE: ReadonlySet<string> = new Set(['title']);

/** The `<title>` of an HTML body, white space collapsed; undefined when none was read (or it is left open). */
export function pageTitle(body: string): string | undefined {
  let title: string | undefined;
  // The walk ends at the title's end tag: a page's head, not its whole body, for most answers.
  walkTags(body, {
    names: TITLE,
    onTag: (tag) => (tag.name === 'title' ? 'text' : undefined),
    onText: (_, text) => {
      title = text;
      return 'stop';
    },
  });
  // Kept in the answer's print: a copy, or the whole body would be kept with it.
  return title === undefined ? undefined : ownCopy(title.replace(/\s+/g, ' ').trim());
}

export function answerPrint(view: ResponseView, bytesRead: number): AnswerPrint {
  const title = pageTitle(view.body);
  return {
    httpStatus: view.status,
    finalUrl: view.url,
    bodyLength: bytesRead,
    ...(title === undefined ? {} : { title }),
  };
}

/** Same status, same final URL, the same title (or none on both) and body lengths within the margin. */
export function indistinguishable(a: AnswerPrint, b: AnswerPrint): boolean {
  if (a.httpStatus !== b.httpStatus || a.finalUrl !== b.finalUrl || a.title !== b.title) return false;
  const margin = Math.max(SAME_LENGTH_BYTES, SAME_LENGTH_SHARE * Math.max(a.bodyLength, b.bodyLength));
  return Math.abs(a.bodyLength - b.bodyLength) <= margin;
}

function randomFrom(alphabet: string, length: number, random: () => number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/**
 * A name that cannot exist on `platform`: random, within its username rule,
 * never one of its known accounts. Tries plain shapes first (letters then
 * digits, letters only, digits only), then a sample of the rule's own pattern.
 * Undefined when the rule admits nothing these can produce.
 */
export function controlName(platform: Platform, random: () => number): string | undefined {
  const rule = platform.username;
  const length = Math.max(rule.minLength, Math.min(CONTROL_LENGTH, rule.maxLength));
  const known = new Set([...platform.known.claimed, ...platform.known.unclaimed].map((n) => n.toLowerCase()));
  const fits = (name: string) => ruleViolation(rule, name) === undefined && !known.has(name.toLowerCase());
  for (let attempt = 0; attempt < 4; attempt++) {
    const letters = Math.min(length, Math.max(1, length - 4));
    const candidates = [
      randomFrom(LETTERS, letters, random) + randomFrom(DIGITS, length - letters, random),
      randomFrom(LETTERS, length, random),
      randomFrom(DIGITS, length, random),
    ];
    const fitting = candidates.find(fits);
    if (fitting) return fitting;
  }
  if (!rule.pattern) return undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const gen = new RandExp(rule.pattern);
    gen.max = length;
    gen.randInt = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
    const sample = gen.gen();
    if (fits(sample)) return sample;
  }
  return undefined;
}

/**
 * Whether an outcome is the rule itself saying "not an account": a miss, or, on a
 * hit-only platform (which never reads miss), its unknown/no_miss_rule.
 */
export function toldNotAHit(outcome: Pick<Outcome, 'status' | 'reason'>): boolean {
  return outcome.status === 'miss' || (outcome.status === 'unknown' && outcome.reason === 'no_miss_rule');
}

/**
 * The record a control check leaves: it drifts on a hit, recovers when the rule
 * tells the control is not an account (`toldNotAHit`), and otherwise keeps what it was.
 */
export function controlRecord(
  previous: ControlRecord | undefined,
  control: { readonly outcome: Outcome; readonly answer?: AnswerPrint | undefined },
  identity: string,
  username: string,
  checkedAt: number,
): ControlRecord {
  const { outcome } = control;
  const drift = outcome.status === 'hit' ? true : toldNotAHit(outcome) ? false : (previous?.drift ?? false);
  return {
    platformId: outcome.platformId,
    identity,
    username,
    status: outcome.status,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    rule: outcome.evidence.rule,
    ...(control.answer ? { answer: control.answer } : {}),
    drift,
    checkedAt,
  };
}

/** One line naming the control, for a hit's evidence and the platform's health. */
export function describeControl(record: ControlRecord): string {
  const read = record.reason ? `${record.status}/${record.reason}` : record.status;
  return `control ${JSON.stringify(record.username)} read ${read} (${record.rule}) at ${new Date(record.checkedAt).toISOString()}${record.drift && record.status !== 'hit' ? '; drifted since an earlier control read hit' : ''}`;
}

/**
 * A hit as it stands after its control: `unknown`/`rule_drift` when the rule has
 * drifted, or when its answer cannot be told from the control's and the rule did
 * not itself tell the control apart (a miss, or a hit-only platform's
 * unknown/no_miss_rule: e.g. an API answering `{"available":true}` or `false` at one URL).
 * Any other outcome, or a hit without a control record, is returned as it is.
 */
export function judgeHit(
  hit: Outcome,
  answer: AnswerPrint | undefined,
  control: ControlRecord | undefined,
): Outcome {
  if (hit.status !== 'hit' || !control) return hit;
  const named = { ...hit, evidence: { ...hit.evidence, control: describeControl(control) } };
  const sameAsControl =
    !toldNotAHit(control) &&
    answer !== undefined &&
    control.answer !== undefined &&
    indistinguishable(answer, control.answer);
  if (!control.drift && !sameAsControl) return named;
  const why = control.drift
    ? 'rule drift: a name that cannot exist reads as a hit here too'
    : "rule drift: this answer cannot be told from the control's";
  return {
    ...named,
    status: 'unknown',
    reason: 'rule_drift',
    evidence: { ...named.evidence, rule: `${why} (was ${hit.evidence.rule})` },
  };
}
