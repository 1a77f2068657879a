/**
 * Recognises bot-shield challenge pages from fingerprints (data, see
 * src/catalogue/shields.json). Pure.
 */
import type { Shield } from '../catalogue/platform.js';
import type { ResponseView } from './response-view.js';

export type Tri = true | false | 'pending';

/**
 * Challenge pages are small: their markers are looked for in the first 32 KiB
 * only, so a large page stops waiting on shields once that much has arrived.
 */
export const SHIELD_BODY_WINDOW = 32 * 1024;

/** true: this is the shield's page; false: it is not; 'pending': more body is needed to tell. */
export function matchShield(
  shield: Shield,
  view: ResponseView,
  head = bodyHead(view.body, longestOf(shield.body)),
): Tri {
  if (!passesStatusAndHeaders(shield, view)) return false;
  if (shield.body.length === 0) return true;
  if (
    shield.body.some((marker) => {
      const at = head.indexOf(marker);
      return at >= 0 && at < SHIELD_BODY_WINDOW;
    })
  )
    return true;
  return view.complete || view.body.length >= SHIELD_BODY_WINDOW ? false : 'pending';
}

/** The shield's status and header conditions hold (its body markers aside). */
function passesStatusAndHeaders(shield: Shield, view: ResponseView): boolean {
  if (shield.status && !shield.status.includes(view.status)) return false;
  for (const [name, text] of shield.headers) {
    const value = view.headers[name];
    if (value === undefined || !value.toLowerCase().includes(text.toLowerCase())) return false;
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
  for (const shield of shields) {
    // Most shields are ruled out by status or headers: the body head is cut only for one that is not.
    if (shield.body.length > 0 && passesStatusAndHeaders(shield, view))
      head ??= bodyHead(view.body, longestMarker(shields));
    const m = matchShield(shield, view, head ?? '');
    if (m === true) return shield;
    if (m === 'pending') pending = true;
  }
  return pending ? 'pending' : undefined;
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
