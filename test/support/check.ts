/** A check as the pipeline's steps see it (src/engine/pipeline/dispatch.ts), for tests of one step with a fake next. */
import type { Dispatcher } from 'undici';
import type { Platform } from '../../src/catalogue/platform.js';
import type { Check } from '../../src/engine/pipeline/dispatch.js';
import { buildRequest } from '../../src/engine/verdict/request.js';

export function checkOf(platform: Platform, username = 'alice', extra: Partial<Check> = {}): Check {
  const built = buildRequest(platform, username, {}, undefined);
  if (!built.ok) throw new Error(`${username} cannot be sent to ${platform.name}`);
  return {
    platform,
    username,
    request: built.request,
    profileUrl: built.profileUrl,
    session: undefined,
    site: built.request.origin,
    ceiling: { perSecond: 1, burst: 1 },
    priority: 0,
    book: undefined,
    cancel: undefined,
    joined: undefined,
    signal: undefined,
    escalations: undefined,
    egress: { index: 0, name: 'default', dispatcher: {} as Dispatcher },
    transport: platform.transport,
    admitted: false,
    ...extra,
  };
}
