/**
 * Recognises bot-shield challenge pages from fingerprints (data, see
 * src/catalogue/shields.json). Pure.
 */
import type { Shield } from '../../catalogue/platform.js';
import type { ResponseView } from './response-view.js';

export type Tri = true | false | 'pending';

/**
 * Challenge pages are small: their markers are looked for in the first 32 KiB
 * only, so a large page stops waiting on shields once that much has arrived.
 */
export const SHIELD_BODY_WINDOW = 32 * 1024;

/** More of the window may still arrive, and a marker with it. */
function markersMayStillCome(view: ResponseView): boolean {
  return !view.complete && view.body.length < SHIELD_BODY_WINDOW;
}

/** One of the shield's body markers starts within the window. */
function hasMarker(shield: Shield, head: string): boolean {
  for (let i = 0; i < shield.body.length; i++) {
    const at = head.indexOf(shield.body[i]!);
    if (at >= 0 && at < SHIELD_BODY_WINDOW) return true;
  }
  return false;
}

/** The shield's status and header conditions hold (its body markers aside). */
function passesStatusAndHeaders(shield: Shield, view: ResponseView): boolean {
  if (shield.status && !shield.status.includes(view.status)) return false;
  // Indexed, not destructured: this runs for every shield on every answer.
  for (let i = 0; i < shield.headers.length; i++) {
    const header = shield.headers[i]!;
    const value = view.headers[header[0]];
    if (value === undefined || !value.toLowerCase().includes(header[1].toLowerCase())) return false;
  }
  return true;
}

/** The part of a body a marker can lie in: it must start within the window. */
function bodyHead(body: string, longestMarker: number): string {
  const end = SHIELD_BODY_WINDOW + longestMarker - 1;
  return body.length > end ? body.slice(0, end) : body;
}

/** The first shield that matches, 'pending' when one might once more body arrives, or undefined. */
export function detectShield(shields: readonly Shield[], view: ResponseView): Shield | 'pending' | undefined {
  let pending = false;
  let head: string | undefined;
  // Per shield: its status and headers, no body markers (its page), a marker in the window, or 'pending' while more may come.
  for (let i = 0; i < shields.length; i++) {
    const shield = shields[i]!;
    if (!passesStatusAndHeaders(shield, view)) continue;
    if (shield.body.length === 0) return shield;
    // Most shields are ruled out by status or headers: the body head is cut only for one that is not.
    head ??= bodyHead(view.body, longestMarker(shields));
    if (hasMarker(shield, head)) return shield;
    if (markersMayStillCome(view)) pending = true;
  }
  return pending ? 'pending' : undefined;
}

/**
 * Whether the answer is a challenge its page's own script passes unattended: the shield that
 * matches it is marked `passedByScript`, and the page shows no captcha's widget (a captcha
 * shield's marker), which waits for a person.
 */
export function passesUnattended(shields: readonly Shield[], view: ResponseView): boolean {
  const shield = detectShield(shields, view);
  if (shield === undefined || shield === 'pending' || !shield.passedByScript) return false;
  const head = bodyHead(view.body, longestMarker(shields));
  return !shields.some((other) => other.reason === 'captcha' && hasMarker(other, head));
}

function longestOf(markers: readonly string[]): number {
  return markers.reduce((n, marker) => Math.max(n, marker.length), 1);
}

const longest = new WeakMap<readonly Shield[], number>();

/** Length of the longest body marker of a list of shields (remembered per list: it is the catalogue's). */
function longestMarker(shields: readonly Shield[]): number {
  let n = longest.get(shields);
  if (n === undefined) {
    n = longestOf(shields.flatMap((shield) => shield.body));
    longest.set(shields, n);
  }
  return n;
}
