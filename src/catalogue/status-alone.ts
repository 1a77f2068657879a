/**
 * Rules that cannot tell on their own. An entry whose `exists` side is the
 * status code alone reads every answer with that status as an account, so it
 * is only sound when a missing account answers with another status. When the
 * entry's own `missing` rules give no other status (a soft-404 page told apart
 * by its text alone), or WhatsMyName records the same status for a missing
 * account at the same address, the day the missing page's text changes every
 * name becomes a false hit. Such an entry needs a body, JSON, header or
 * redirect signal on the `exists` side, as does a hit-only entry (an empty
 * `missing`), which has nothing else to tell a profile from any page. A text
 * naming the account (`{username}` in it) is such a signal: it is read from the
 * page, and a changed error page that does not name the one account asked about
 * reads unknown, not hit. Pure; `catalogue validate` applies it.
 */
import { type BasicSignal, isHitOnly, type Platform, type Signal, type SignalPart } from './platform.js';
import { PLACEHOLDER } from './template.js';

const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/**
 * The statuses the exists side accepts (its status parts, intersected; undefined: it names
 * none), and whether it reads nothing but the status.
 */
function existsStatuses(platform: Platform): {
  readonly codes: readonly number[] | undefined;
  readonly alone: boolean;
} {
  let codes: number[] | undefined;
  let alone = true;
  for (const signal of platform.detect.exists) {
    const parts: readonly BasicSignal[] = signal.kind === 'all' ? positiveParts(signal) : [signal];
    for (const part of parts) {
      // Every other fact is read from the answer beyond its status, a text naming the account too.
      if (part.kind !== 'status') alone = false;
      else codes = codes ? codes.filter((c) => part.codes.includes(c)) : [...part.codes];
    }
  }
  return { codes, alone };
}

/** The statuses the exists side accepts when it is status alone; undefined when it reads anything else. */
function statusAloneCodes(platform: Platform): readonly number[] | undefined {
  const { codes, alone } = existsStatuses(platform);
  return alone ? codes : undefined;
}

/**
 * The parts of a group that must hold. A `not` part only says what the page
 * lacks, which every changed page may lack too: it tells nothing on its own.
 */
function positiveParts(signal: Extract<Signal, { kind: 'all' }>): readonly BasicSignal[] {
  return signal.parts.flatMap((part) => (part.kind === 'not' ? [] : [part]));
}

/** The statuses a missing signal can hold with; undefined = any status. */
function missingStatuses(signal: Signal, platform: Platform): readonly number[] | undefined {
  if (signal.kind === 'status') return signal.codes;
  if (signal.kind === 'redirect')
    return platform.check.redirects === 'manual' ? REDIRECT_STATUSES : undefined;
  if (signal.kind === 'all') {
    let codes: readonly number[] | undefined;
    for (const part of signal.parts) {
      if (part.kind === 'not') continue;
      const own = missingStatuses(part, platform);
      if (own) codes = codes ? codes.filter((c) => own.includes(c)) : own;
    }
    return codes;
  }
  return undefined;
}

/**
 * Why the platform's exists side cannot tell on its own, or undefined.
 * `recordedMissing`: statuses a reference list records for a missing account at
 * the same check address (WhatsMyName's `m_code`).
 */
export function statusAloneProblem(
  platform: Platform,
  recordedMissing: readonly number[] = [],
): string | undefined {
  const codes = statusAloneCodes(platform);
  if (!codes) return undefined;
  const said = `exists is status ${codes.join('|')} alone`;
  const fix = `add a body, JSON, header or redirect signal to exists (a marker only a profile has, or the page naming the account: {"text": "/u/${PLACEHOLDER}\\""})`;
  if (isHitOnly(platform))
    return `${said} on a hit-only entry (an empty missing): every answer with that status would read as an account; ${fix}`;
  const distinct = platform.detect.missing.some((signal) => {
    const statuses = missingStatuses(signal, platform);
    return statuses?.every((s) => !codes.includes(s)) ?? false;
  });
  if (!distinct)
    return `${said}, and no missing signal gives a missing account another status: a missing page whose text changes would read as an account; ${fix}`;
  const same = recordedMissing.filter((s) => codes.includes(s));
  if (same.length > 0)
    return `${said}, but WhatsMyName records status ${same.join('|')} for a missing account at this address; ${fix}`;
  return undefined;
}

/**
 * Whether a missing signal names something of a not-found page: its text, a JSON member, a
 * header, a redirect, or a status a profile does not answer with (200, when its exists side
 * names none). What a page lacks does not.
 */
function namesNotFoundPage(signal: Signal | SignalPart, profileStatuses: readonly number[]): boolean {
  if (signal.kind === 'not') return false;
  if (signal.kind === 'status') return signal.codes.every((c) => !profileStatuses.includes(c));
  if (signal.kind === 'all') return signal.parts.some((part) => namesNotFoundPage(part, profileStatuses));
  return true;
}

/**
 * Why the platform's missing side cannot tell on its own, or undefined: every missing signal
 * says only what the page lacks (status 200 without the profile's marker), so a login wall, a
 * block page or a new layout answered with a profile's status would read as "not there".
 */
export function absenceAloneProblem(platform: Platform): string | undefined {
  if (isHitOnly(platform)) return undefined;
  const profileStatuses = existsStatuses(platform).codes ?? [200];
  if (platform.detect.missing.some((signal) => namesNotFoundPage(signal, profileStatuses))) return undefined;
  return "missing only says what the page lacks: a login wall, a block page or a new layout with a profile's status would read as not there; name something of the not-found page (its text, a JSON member, a header, a redirect or another status), or make the entry hit-only (an empty missing)";
}
