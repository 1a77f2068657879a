/**
 * Generated platform sets with mixed behaviours and a known right answer for
 * each: for tests at scale and for the benchmark's growth cases. Seeded.
 */
import type { PlatformSpec } from '../catalogue/schema.js';
import type { OutcomeReason, OutcomeStatus } from '../engine/verdict/outcome.js';
import type { Behaviour, WafVendor } from './behaviour.js';
import { seededRandom } from './random.js';
import type { BrokenTls } from './tls.js';

export const SYNTHETIC_KINDS = [
  'status',
  'soft404',
  'redirect',
  'follow',
  'json',
  'gzip',
  'waf',
  'rate-limited',
  'hang',
  'reset',
  'server-error',
  'login-wall',
  'invalid',
  'broken-tls',
] as const;
export type SyntheticKind = (typeof SYNTHETIC_KINDS)[number];

export interface SyntheticPlatform {
  readonly spec: PlatformSpec;
  readonly kind: SyntheticKind;
  /** The username has an account here (for the kinds that answer normally). */
  readonly exists: boolean;
  readonly expected: { readonly status: OutcomeStatus; readonly reason?: OutcomeReason };
  /** Replaces the emulated answer (for the failure kinds). */
  readonly behaviour?: Behaviour;
  readonly brokenTls?: BrokenTls;
}

const VENDORS: readonly [WafVendor, 'waf' | 'captcha'][] = [
  ['cloudflare', 'waf'],
  ['akamai', 'waf'],
  ['ddos-guard', 'waf'],
  ['perimeterx', 'captcha'],
  ['aws-waf', 'captcha'],
  ['imperva', 'waf'],
];

/**
 * `count` platforms for `username`. `mix` 'mixed' spreads every kind; 'normal'
 * uses only the kinds that answer as their rules say (for speed measurements).
 */
export function syntheticPlatforms(
  count: number,
  options: { seed?: number; username?: string; mix?: 'mixed' | 'normal' } = {},
): SyntheticPlatform[] {
  const random = seededRandom(options.seed ?? 7);
  const kinds: readonly SyntheticKind[] =
    options.mix === 'normal' ? ['status', 'soft404', 'redirect', 'json', 'gzip'] : SYNTHETIC_KINDS;
  const out: SyntheticPlatform[] = [];
  for (let i = 0; i < count; i++) {
    // Mostly normal platforms, as on the real web; every failure kind still appears.
    const kind: SyntheticKind =
      options.mix === 'normal' || random() < 0.7
        ? kinds[i % Math.min(5, kinds.length)]!
        : kinds[i % kinds.length]!;
    const exists = random() < 0.4;
    const host = `p${i}.synthetic.test`;
    const base: PlatformSpec = {
      name: `Synthetic ${i} ${kind}`,
      category: 'misc',
      home: `https://${host}/`,
      profile: `https://${host}/user/{username}`,
      detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
      known: { claimed: ['alice'], unclaimed: ['nobody-7'] },
      tags: ['synthetic', kind],
    };
    const hitOrMiss = { status: exists ? ('hit' as const) : ('miss' as const) };
    switch (kind) {
      case 'status':
      case 'gzip':
        out.push({ spec: base, kind, exists, expected: hitOrMiss });
        break;
      case 'soft404':
        out.push({
          spec: {
            ...base,
            detect: {
              exists: [{ status: [200] }, { text: 'class="profile-card"' }],
              missing: [{ text: 'Sorry, this page does not exist' }],
            },
          },
          kind,
          exists,
          expected: hitOrMiss,
        });
        break;
      case 'redirect':
        out.push({
          spec: { ...base, detect: { exists: [{ status: [200] }], missing: [{ redirect: '/signup' }] } },
          kind,
          exists,
          expected: hitOrMiss,
        });
        break;
      case 'follow':
        out.push({
          spec: {
            ...base,
            check: { redirects: 'follow' },
            detect: {
              exists: [{ status: [200] }, { text: 'data-user' }],
              missing: [{ redirect: '/not-found' }],
            },
          },
          kind,
          exists,
          expected: hitOrMiss,
        });
        break;
      case 'json':
        out.push({
          spec: {
            ...base,
            check: { url: `https://api.${host}/v2/users/{username}` },
            detect: { exists: [{ json: 'user.id' }], missing: [{ json: 'error.code', equals: 'not_found' }] },
          },
          kind,
          exists,
          expected: hitOrMiss,
        });
        break;
      case 'waf': {
        const [vendor, reason] = VENDORS[i % VENDORS.length]!;
        out.push({
          spec: base,
          kind,
          exists,
          behaviour: { kind: 'waf', vendor },
          expected: { status: 'unknown', reason },
        });
        break;
      }
      case 'rate-limited':
        out.push({
          spec: base,
          kind,
          exists,
          behaviour: {
            kind: 'rate-limit',
            times: 1_000_000,
            retryAfter: '0',
            after: { kind: 'respond', status: 200 },
          },
          expected: { status: 'unknown', reason: 'rate_limited' },
        });
        break;
      case 'hang':
        out.push({
          spec: base,
          kind,
          exists,
          behaviour: { kind: 'hang' },
          expected: { status: 'error', reason: 'timeout' },
        });
        break;
      case 'reset':
        out.push({
          spec: base,
          kind,
          exists,
          behaviour: { kind: 'reset' },
          expected: { status: 'error', reason: 'connection' },
        });
        break;
      case 'server-error':
        out.push({
          spec: base,
          kind,
          exists,
          behaviour: { kind: 'respond', status: 500, body: 'Internal Server Error' },
          expected: { status: 'unknown', reason: 'unexpected_response' },
        });
        break;
      case 'login-wall':
        out.push({
          spec: {
            ...base,
            detect: {
              exists: [{ status: [200] }, { text: 'class="profile-card"' }],
              missing: [{ text: 'Sorry, this page does not exist' }],
            },
          },
          kind,
          exists,
          behaviour: {
            kind: 'respond',
            status: 200,
            body: '<html><form action="/login">Log in to continue</form></html>',
          },
          expected: { status: 'unknown', reason: 'unexpected_response' },
        });
        break;
      case 'invalid':
        out.push({
          spec: {
            ...base,
            username: { pattern: '^[0-9]+$' },
            known: { claimed: ['1'], unclaimed: ['999999999'] },
          },
          kind,
          exists,
          expected: { status: 'invalid', reason: 'username_rule' },
        });
        break;
      case 'broken-tls':
        out.push({
          spec: base,
          kind,
          exists,
          brokenTls: 'self-signed',
          expected: { status: 'error', reason: 'tls' },
        });
        break;
    }
  }
  return out;
}
