import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../catalogue/categories.js';
import {
  answeredOutcome,
  ERROR_REASONS,
  errorOutcome,
  INVALID_REASONS,
  invalidOutcome,
  OUTCOME_STATUSES,
  type Outcome,
  UNKNOWN_REASONS,
  unsentUnknownOutcome,
} from '../engine/verdict/outcome.js';
import {
  CATEGORY_CODES,
  decodeOutcome,
  encodeOutcome,
  REASON_CODES,
  STATUS_CODES,
  toTemplate,
  vocabularyIdsIn,
  vocabularyOf,
} from './compact-outcome.js';

/** A vocabulary in memory, as a backend keeps one: ids from 1, given on first use. */
function vocabulary() {
  const ids = new Map<string, number>();
  const texts: string[] = [];
  return {
    intern(template: string): number {
      let id = ids.get(template);
      if (id === undefined) {
        texts.push(template);
        id = texts.length;
        ids.set(template, id);
      }
      return id;
    },
    idOf: (template: string) => ids.get(template),
    textOf: (id: number) => {
      const text = texts[id - 1];
      if (text === undefined) throw new Error(`no vocabulary id ${id}`);
      return text;
    },
    get size() {
      return texts.length;
    },
  };
}

/** Seeded, so a failure names the case that broke. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const USERNAMES = [
  'alice',
  'a',
  'Bob.Smith',
  'x_y-z',
  'élodie',
  '用户',
  'com',
  'https',
  '42',
  'a\u0000b',
  '',
];
const HOSTS = [
  'https://github.com/{u}',
  'https://{u}.example.com/',
  'https://x.com/user?name={u}&x=1',
  'http://a.com/u/{u}/{u}',
];

function outcomeShapes(rand: () => number, username: string): Outcome[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const name = pick(['GitHub', 'X (Twitter)', 'Ésprit', 'a\u0000b', 'com']);
  const platform = { name, id: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), category: pick(CATEGORIES) };
  const url = pick(HOSTS).split('{u}').join(username);
  const ms = Math.floor(rand() * 20_000);
  const answer = {
    responseTime: ms,
    attempts: 1 + Math.floor(rand() * 3),
    httpStatus: pick([200, 404, 301, 403, 429, 503]),
    finalUrl: pick([
      url,
      `${url}/`,
      'https://example.com/login',
      `https://example.com/login?next=%2F${username}`,
    ]),
    bytesRead: Math.floor(rand() * 100_000),
  };
  const shapes: Outcome[] = [
    answeredOutcome(platform, url, { status: 'hit', rule: 'exists: status 200 & text "<h1>"' }, answer),
    answeredOutcome(platform, url, { status: 'miss', rule: 'missing: status 404' }, answer),
    answeredOutcome(platform, url, { status: 'miss', rule: `missing: redirect "/${username}"` }, answer),
    ...UNKNOWN_REASONS.map((reason) =>
      reason === 'budget_exhausted'
        ? unsentUnknownOutcome(platform, url, reason, `not sent: waited ${ms} ms`)
        : answeredOutcome(platform, url, { status: 'unknown', reason, rule: `shield: ${reason}` }, answer),
    ),
    ...ERROR_REASONS.map((reason) =>
      errorOutcome(platform, url, reason, `connect ECONNREFUSED 10.0.0.${ms % 255}:443`, {
        responseTime: ms,
        attempts: answer.attempts,
      }),
    ),
    ...INVALID_REASONS.map((reason) => invalidOutcome(platform, url, reason, `does not match ^[a-z]+$`)),
  ];
  const hit = shapes[0]!;
  // Reused from the cache, and shapes the engine never builds: they must come back exactly too.
  shapes.push(
    { ...hit, evidence: { ...hit.evidence, cachedAt: 1_763_000_000_000 + Math.floor(rand() * 1e9) } },
    { ...hit, responseTime: 12.5 },
    { ...hit, evidence: { rule: 'r', attempts: 0, finalUrl: 'https://other.example/' } },
    { ...hit, evidence: { attempts: 1, rule: 'key order differs' } as Outcome['evidence'] },
    { ...hit, category: 'not-a-category' as Outcome['category'] },
    { ...hit, evidence: { ...hit.evidence, httpStatus: -1 } },
    { ...hit, evidence: { ...hit.evidence, bytesRead: 2 ** 53 - 1 } },
    { ...hit, extra: true } as Outcome,
    { ...hit, reason: undefined },
    { ...hit, platform: 'broken \uD800 surrogate' },
    { ...hit, evidence: { ...hit.evidence, rule: 'lone \uDC00' } },
    // What the engine adds to a hit: a snippet, its control, a profile, linkedFrom; then the cache's cachedAt.
    {
      ...hit,
      evidence: {
        ...hit.evidence,
        snippet: `…<h1>[${username}]</h1>…`,
        control: 'control "zq" read miss (missing: status 404) at 2026-11-24T18:25:33.403Z',
      },
      profile: { fullName: 'A \uD800 B', bio: 'x'.repeat(300), links: [`https://x.test/${username}`] },
      linkedFrom: ['github'],
    },
    {
      ...hit,
      evidence: { ...hit.evidence, snippet: 's', cachedAt: 1_763_000_000_000 },
      profile: { followers: 12 },
    },
    { ...hit, evidence: { snippet: 'first', ...hit.evidence } },
    // As the outcome cache keeps a hit: cachedAt added after the snippet and control (search-job.ts).
    {
      ...hit,
      evidence: {
        ...hit.evidence,
        snippet: 'cached',
        control: 'control "q9" read miss (m) at 2026-11-24T18:25:33.403Z',
        cachedAt: 1_763_000_000_000,
      },
      profile: { fullName: 'cached' },
    },
    { ...hit, evidence: { ...hit.evidence, snippet: 'cached', cachedAt: 1_763_000_000_001 } },
    {
      ...hit,
      evidence: {
        ...hit.evidence,
        control: 'control "q10" read miss (m) at 2026-11-24T18:25:33.403Z',
        cachedAt: 1_763_000_000_002,
      },
    },
    // Control lines kept in parts (a reason, a drift note, the username in the rule, the control
    // not last), and lines that are not quite one (kept as JSON).
    ...[
      'control "q1" read unknown/waf (shield: cloudflare) at 2026-01-02T03:04:05.006Z',
      'control "q\\"2" read miss (missing: text ") at x") at 1970-01-01T00:00:00.000Z; drifted since an earlier control read hit',
      `control "q3" read hit (exists: text "${username}") at 2026-11-24T18:25:33.403Z`,
      'control "q4" read maybe (x) at 2026-11-24T18:25:33.403Z',
      'control "q5" read miss (x) at 2026-13-24T18:25:33.403Z',
      'control "q6" read miss/nope (x) at 2026-11-24T18:25:33.403Z',
      'control q7 read miss (x) at 2026-11-24T18:25:33.403Z',
      'control "\uD800" read miss (x) at 2026-11-24T18:25:33.403Z',
    ].map((control) => ({ ...hit, evidence: { ...hit.evidence, control } })),
    {
      ...hit,
      evidence: {
        ...hit.evidence,
        control: 'control "q8" read miss (m) at 2026-11-24T18:25:33.403Z',
        snippet: 'after the control',
      },
    },
    { ...hit, profile: undefined } as Outcome,
    { profile: { fullName: 'before' }, ...hit } as Outcome,
  );
  return shapes;
}

describe('compact outcome', () => {
  it('has a code for every status, category and reason (append new ones to the codes, never reorder)', () => {
    expect([...STATUS_CODES].sort()).toEqual([...OUTCOME_STATUSES].sort());
    expect([...CATEGORY_CODES].sort()).toEqual([...CATEGORIES].sort());
    expect([...REASON_CODES].sort()).toEqual(
      [...UNKNOWN_REASONS, ...ERROR_REASONS, ...INVALID_REASONS].sort(),
    );
    // Codes stored by the first release of format 1.
    expect(STATUS_CODES.indexOf('miss')).toBe(1);
    expect(CATEGORY_CODES.indexOf('nsfw')).toBe(23);
    expect(REASON_CODES.indexOf('unsafe_username')).toBe(12);
  });

  it('decodes every shape back to exactly the outcome encoded, with a vocabulary and without', () => {
    const rand = random(16);
    const vocab = vocabulary();
    let cases = 0;
    // Each round draws new shapes; 12 cover every kind many times in a few seconds on a busy machine.
    for (let round = 0; round < 12; round++) {
      for (const username of USERNAMES) {
        for (const outcome of outcomeShapes(rand, username)) {
          for (const interning of [true, false]) {
            if (interning) for (const t of vocabularyOf(outcome, username)) vocab.intern(t);
            const bytes = encodeOutcome(outcome, username, interning ? vocab.idOf : undefined);
            const back = decodeOutcome(bytes, username, vocab.textOf);
            // Same values and the same key order: the API's JSON reads byte for byte the same.
            expect(JSON.stringify(back)).toBe(JSON.stringify(outcome));
            expect(back).toStrictEqual(JSON.parse(JSON.stringify(outcome)));
            for (const id of vocabularyIdsIn(bytes)) expect(() => vocab.textOf(id)).not.toThrow();
            if (!interning) expect(vocabularyIdsIn(bytes)).toEqual([]);
            cases++;
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(10_000);
  });

  it('gives each encoding bytes of its own, after a long one and after one that failed half-way', () => {
    const platform = { name: 'GitHub', id: 'github', category: 'coding' as const };
    const hit = (username: string, snippet: string, name = platform.name) => {
      const url = `https://github.com/${username}`;
      const outcome = answeredOutcome(
        { ...platform, name },
        url,
        { status: 'hit', rule: 'exists: status 200' },
        { responseTime: 312, attempts: 1, httpStatus: 200, finalUrl: url, bytesRead: 48_213 },
      );
      return { ...outcome, evidence: { ...outcome.evidence, snippet } };
    };
    const short = hit('alice', 'Alice', 'GitHub (a mirror)');
    const first = encodeOutcome(short, 'alice');
    const copy = Uint8Array.from(first);
    // Longer than any buffer a writer starts with, and non-ASCII all through.
    const long = hit('bob', 'Zoë ✓ '.repeat(2_000));
    const second = encodeOutcome(long, 'bob');
    expect(first).toEqual(copy);
    expect(decodeOutcome(second, 'bob', () => '')).toEqual(long);
    const failing = () => {
      throw new Error('vocabulary unavailable');
    };
    expect(() => encodeOutcome(hit('carol', 'Carol'), 'carol', failing)).toThrow('vocabulary unavailable');
    const third = encodeOutcome(hit('dave', 'Dave'), 'dave');
    expect(decodeOutcome(third, 'dave', () => '')).toEqual(hit('dave', 'Dave'));
    expect(first).toEqual(copy);
    expect(decodeOutcome(first, 'alice', () => '')).toEqual(short);
  });

  it('keeps a plain miss in a few bytes once its platform is in the vocabulary', () => {
    const vocab = vocabulary();
    const platform = { name: 'GitHub', id: 'github', category: 'coding' as const };
    const miss = (username: string) => {
      const url = `https://github.com/${username}`;
      return answeredOutcome(
        platform,
        url,
        { status: 'miss', rule: 'missing: status 404' },
        { responseTime: 312, attempts: 1, httpStatus: 404, finalUrl: url, bytesRead: 48_213 },
      );
    };
    for (const t of vocabularyOf(miss('alice'), 'alice')) vocab.intern(t);
    const bytes = encodeOutcome(miss('alice'), 'alice', vocab.idOf);
    expect(bytes.length).toBeLessThanOrEqual(16);
    expect(JSON.stringify(miss('alice')).length).toBeGreaterThan(200);
    // Another username reuses the same entries: the vocabulary grows with the catalogue, not with searches.
    for (const t of vocabularyOf(miss('bob'), 'bob')) vocab.intern(t);
    expect(vocab.size).toBe(4);
    expect(decodeOutcome(encodeOutcome(miss('bob'), 'bob', vocab.idOf), 'bob', vocab.textOf)).toEqual(
      miss('bob'),
    );
  });

  it("keeps a hit's profile and evidence extras compact: the core as format 1, the rest as JSON", () => {
    const platform = { name: 'GitHub', id: 'github', category: 'coding' as const };
    const url = 'https://github.com/alice';
    const hit = answeredOutcome(
      platform,
      url,
      { status: 'hit', rule: 'exists: status 200', snippet: '…[alice]…' },
      { responseTime: 312, attempts: 1, httpStatus: 200, finalUrl: url, bytesRead: 4_213 },
    );
    const withProfile = { ...hit, profile: { fullName: 'Alice' } };
    const bytes = encodeOutcome(withProfile, 'alice');
    expect(bytes[0]).toBe(1);
    expect(bytes.length).toBeLessThan(JSON.stringify(withProfile).length);
    expect(decodeOutcome(bytes, 'alice', () => '')).toStrictEqual(withProfile);
  });

  it('keeps a cached hit (cachedAt after its snippet and control) in its order without listing its keys', () => {
    const platform = { name: 'GitHub', id: 'github', category: 'coding' as const };
    const url = 'https://github.com/alice';
    const hit = answeredOutcome(
      platform,
      url,
      { status: 'hit', rule: 'exists: status 200', snippet: '…[alice]…' },
      { responseTime: 312, attempts: 1, httpStatus: 200, finalUrl: url, bytesRead: 4_213 },
    );
    const withControl = {
      ...hit,
      evidence: { ...hit.evidence, control: 'control "q" read miss (m) at 2026-11-24T18:25:33.403Z' },
      profile: { fullName: 'Alice' },
    };
    // What the search job puts in the outcome cache.
    const cached = { ...withControl, evidence: { ...withControl.evidence, cachedAt: 1_763_000_000_000 } };
    const bytes = encodeOutcome(cached, 'alice');
    expect(Object.keys(cached.evidence).at(-1)).toBe('cachedAt');
    expect(new TextDecoder().decode(bytes)).not.toContain('"k"');
    // cachedAt's own bytes (a flag and a 6-byte varint), no key list.
    expect(bytes.length - encodeOutcome(withControl, 'alice').length).toBeLessThanOrEqual(7);
    expect(JSON.stringify(decodeOutcome(bytes, 'alice', () => ''))).toBe(JSON.stringify(cached));
  });

  it("keeps a hit's control line in parts: its rule from the vocabulary, its time as a number", () => {
    const platform = { name: 'GitHub', id: 'github', category: 'coding' as const };
    const url = 'https://github.com/alice';
    const hit = answeredOutcome(
      platform,
      url,
      { status: 'hit', rule: 'exists: status 200' },
      { responseTime: 312, attempts: 1, httpStatus: 200, finalUrl: url, bytesRead: 4_213 },
    );
    const control =
      'control "upwburotrado6377" read miss (missing: text "No channels found") at 2026-11-24T20:13:22.695Z';
    const withControl = { ...hit, evidence: { ...hit.evidence, control } };
    const vocab = vocabulary();
    for (const t of vocabularyOf(withControl, 'alice')) vocab.intern(t);
    expect(vocab.size).toBe(5);
    const plain = encodeOutcome(hit, 'alice', vocab.idOf);
    const bytes = encodeOutcome(withControl, 'alice', vocab.idOf);
    // The name (17 bytes), status, reason, the rule's id, the time (6) and an empty rest.
    expect(bytes.length - plain.length).toBeLessThanOrEqual(30);
    expect(JSON.stringify(decodeOutcome(bytes, 'alice', vocab.textOf))).toBe(JSON.stringify(withControl));
    expect(vocabularyIdsIn(bytes)).toContain(vocab.idOf('missing: text "No channels found"'));
  });

  it('never offers texts that vary by search to the vocabulary', () => {
    const platform = { name: 'Site', id: 'site', category: 'misc' as const };
    const error = errorOutcome(
      platform,
      'https://site.example/eve',
      'connection',
      'connect ECONNREFUSED 10.1.2.3:443',
      {
        responseTime: 5,
        attempts: 1,
      },
    );
    expect(vocabularyOf(error, 'eve')).toEqual(['Site', 'site', 'https://site.example/\u0000']);
    // The username lower-cased by the platform is not plainly in the address: written out, not kept.
    const lowered = invalidOutcome(platform, 'https://site.example/eve', 'username_rule', 'r');
    expect(vocabularyOf(lowered, 'EVE')).toEqual(['Site', 'site']);
  });

  it('takes the username out only where it stands alone', () => {
    expect(toTemplate('https://alice.example.com/alice', 'alice')).toBe('https://\u0000.example.com/\u0000');
    expect(toTemplate('https://example.com/a', 'a')).toBe('https://example.com/\u0000');
    expect(toTemplate('https://x.com/aa', 'a')).toBe('https://x.com/aa');
  });
});
