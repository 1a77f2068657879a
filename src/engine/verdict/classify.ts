/**
 * Reads an HTTP answer with a platform's rules. Pure: the same view always gives
 * the same verdict. Order: bot shield, rate limit, missing (any), exists (all),
 * otherwise "could not tell". A hit needs every exists signal AND the certainty
 * that no missing signal holds. A hit-only platform (no missing signals) reads
 * every answer that is not a hit as unknown/no_miss_rule. A signal that names the
 * account (a text holding `{username}`) is read with the name the check asked about.
 */
import {
  type BasicSignal,
  describeSignal,
  isHitOnly,
  namedText,
  type Platform,
  type Shield,
  type Signal,
  type SignalPart,
} from '../../catalogue/platform.js';
import { signalSnippet } from './evidence-snippet.js';
import type { OutcomeStatus, UnknownReason } from './outcome.js';
import type { ResponseView } from './response-view.js';
import { detectShield, type Tri } from './shields.js';

export interface Verdict {
  readonly status: Extract<OutcomeStatus, 'hit' | 'miss' | 'unknown'>;
  readonly reason?: UnknownReason;
  /** Which rule decided, for the evidence. */
  readonly rule: string;
  /** The marker of the text or regex signal that decided, with its context (evidence-snippet.ts). */
  readonly snippet?: string;
}

/**
 * What `classify` decides: a verdict, with the signals that held for it (a miss's
 * missing signal, a hit's exists signals). Its snippet is cut once, by `finalVerdict`,
 * not each time a partial body is classified.
 */
export interface Decision extends Verdict {
  readonly decidedBy?: readonly Signal[];
}

/** A decision, or 'pending' when the body read so far does not decide yet. */
export type Classification = Decision | 'pending';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What `evidence.rule` says when a bot shield's fingerprint (shields.json) matched the answer. */
export function shieldRule(name: string): string {
  return `shield: ${name}`;
}

/**
 * `name`: the name the check asked about, as its request carried it (the platform's username
 * rule applied); without one, a signal that names the account does not hold.
 */
export function classify(
  platform: Platform,
  view: ResponseView,
  shields: readonly Shield[],
  name?: string,
): Classification {
  const shield = detectShield(shields, view);
  if (shield === 'pending') return 'pending';
  if (shield) return { status: 'unknown', reason: shield.reason, rule: shieldRule(shield.name) };
  if (view.status === 429) return { status: 'unknown', reason: 'rate_limited', rule: 'status 429' };

  let missingPending = false;
  for (const signal of platform.detect.missing) {
    const held = evaluateSignal(signal, view, name);
    if (held === true)
      return { status: 'miss', rule: `missing: ${describeSignal(signal)}`, decidedBy: [signal] };
    if (held === 'pending') missingPending = true;
  }
  let existsPending = false;
  for (const signal of platform.detect.exists) {
    const held = evaluateSignal(signal, view, name);
    if (held === false) return notAHit(platform, view, missingPending);
    if (held === 'pending') existsPending = true;
  }
  if (missingPending || existsPending) return 'pending';
  return {
    status: 'hit',
    rule: `exists: ${platform.detect.exists.map(describeSignal).join(' & ')}`,
    decidedBy: platform.detect.exists,
  };
}

/**
 * The verdict of an answer whose reading has ended: `decided` when the classifier
 * stopped the reading on `view`, else `view` classified once more; as complete when it
 * still waits (a body that ended early). With the snippet of the first text or
 * regex signal among those that decided it.
 */
export function finalVerdict(
  platform: Platform,
  view: ResponseView,
  shields: readonly Shield[],
  decided?: Decision,
  name?: string,
): Verdict {
  let decision = decided ?? classify(platform, view, shields, name);
  if (decision === 'pending') decision = classify(platform, { ...view, complete: true }, shields, name);
  if (decision === 'pending') return { status: 'unknown', reason: 'unexpected_response', rule: 'undecided' };
  const { decidedBy, ...verdict } = decision;
  for (const signal of decidedBy ?? []) {
    const snippet = signalSnippet(signal, view.body, name);
    if (snippet !== undefined) return { ...verdict, snippet };
  }
  return verdict;
}

function notAHit(platform: Platform, view: ResponseView, missingPending: boolean): Classification {
  // A missing signal may still turn up further down the body: that would be a miss, not an unknown.
  if (missingPending) return 'pending';
  // Its site has no not-found answer: a login wall or a changed page must not read as "not there".
  if (isHitOnly(platform))
    return {
      status: 'unknown',
      reason: 'no_miss_rule',
      rule: `hit-only: not a hit, and no rule tells a missing account (status ${view.status})`,
    };
  return {
    status: 'unknown',
    reason: 'unexpected_response',
    rule: `no rule matched (status ${view.status})`,
  };
}

/**
 * Whether no rule of the platform read the answer: unexpected_response, or a hit-only
 * platform's no_miss_rule (the same answer, on an entry that never says "not there").
 */
export function matchedNoRule(verdict: Pick<Verdict, 'status' | 'reason'>): boolean {
  return (
    verdict.status === 'unknown' &&
    (verdict.reason === 'unexpected_response' || verdict.reason === 'no_miss_rule')
  );
}

export function evaluateSignal(signal: Signal, view: ResponseView, name?: string): Tri {
  if (signal.kind !== 'all') return evaluateBasic(signal, view, name);
  // All parts hold: one that fails decides at once, even while another still waits for the body.
  let pending = false;
  for (const part of signal.parts) {
    const held = evaluatePart(part, view, name);
    if (held === false) return false;
    if (held === 'pending') pending = true;
  }
  return pending ? 'pending' : true;
}

function evaluatePart(part: SignalPart, view: ResponseView, name: string | undefined): Tri {
  if (part.kind !== 'not') return evaluateBasic(part, view, name);
  const held = evaluateBasic(part.signal, view, name);
  return held === 'pending' ? 'pending' : !held;
}

function evaluateBasic(signal: BasicSignal, view: ResponseView, name: string | undefined): Tri {
  switch (signal.kind) {
    case 'status':
      return signal.codes.includes(view.status);
    case 'text':
      if (view.body.includes(signal.text)) return true;
      return view.complete ? false : 'pending';
    case 'name':
      if (name === undefined) return false;
      // Case and all, as a text is: a profile shows the name as it was asked (the username rule
      // folds it where the site does), and on a site where Alice and alice are two accounts
      // another case is another account; a page showing another case reads unknown, never a hit.
      if (view.body.includes(namedText(signal, name))) return true;
      return view.complete ? false : 'pending';
    case 'regex':
      // Linear in the body's length, whatever the pattern (catalogue/linear-regex.ts).
      if (signal.re.test(view.body)) return true;
      return view.complete ? false : 'pending';
    case 'redirect':
      return redirectTarget(view)?.includes(signal.target) ?? false;
    case 'header': {
      const value = view.headers[signal.name];
      if (value === undefined) return false;
      return signal.value === undefined || value.includes(signal.value);
    }
    case 'json': {
      if (!view.complete) return 'pending';
      const found = jsonAt(parseJson(view.body), signal.path);
      if (found === undefined || found === null)
        return 'equals' in signal && signal.equals === null && found === null;
      return 'equals' in signal ? found === signal.equals : true;
    }
  }
}

/** Where the answer sent us: the Location of a 3xx, or the final URL after followed redirects. */
function redirectTarget(view: ResponseView): string | undefined {
  if (REDIRECT_STATUSES.has(view.status)) {
    const location = view.headers.location;
    if (location === undefined) return undefined;
    try {
      return new URL(location, view.url).href;
    } catch {
      return location;
    }
  }
  return view.redirected ? view.url : undefined;
}

let lastBody = '';
let lastValue: unknown;

/** JSON.parse with a one-entry memo: several json signals usually read the same body. */
function parseJson(body: string): unknown {
  if (body === lastBody && lastValue !== undefined) return lastValue;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  lastBody = body;
  lastValue = value;
  return value;
}

export function jsonAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      const index = Number(segment);
      if (!Number.isInteger(index)) return undefined;
      current = current.at(index);
    } else {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}
