/**
 * An outcome in few bytes, the same for every backend, decoded back to exactly
 * the outcome stored (the same fields, values and key order: what the API shows).
 * Pure: the backend's vocabulary (texts stored once, referred to by number) is
 * passed in, so SQLite, Redis and PostgreSQL share one format.
 *
 * Format 1 (byte 0 = 1), varints are unsigned LEB128 (7 bits a byte, low first):
 *   varint  flags: bits 0-2 status (index in STATUS_CODES), bit 3 reason,
 *           bit 4 httpStatus, bits 5-6 finalUrl (0 absent, 1 = url, 2 text follows),
 *           bit 7 bytesRead, bit 8 cachedAt, bit 9 extras
 *   byte    category (index in CATEGORY_CODES)
 *   [varint reason: index in REASON_CODES]
 *   text    platform, text platformId, text url
 *   varint  responseTime
 *   [varint httpStatus] [text finalUrl]
 *   text    rule
 *   varint  attempts
 *   [varint bytesRead] [varint cachedAt]
 *   [text extras: JSON {o, e, k} of the fields beyond these (a hit's profile and
 *    linkedFrom; the evidence's snippet, and its control when not below), written
 *    out, and the evidence's key order when its extra fields are not all last,
 *    unless bit 11 gives it]
 *   [control (bit 10), the evidence's `control` line (engine/controls/control.ts
 *    describeControl) in parts, when they give it back exactly: text name,
 *    varint status, varint reason + 1 (0: none), text rule, varint checkedAt ms,
 *    text what follows the time (usually nothing)]
 *   bit 11 (cachedAt last): the evidence's cachedAt comes after its extra fields and
 *   control, not after bytesRead (the order of an outcome the search job caches:
 *   src/runner/search-job.ts adds cachedAt to the evidence the engine built)
 * A text is a varint t: t even, vocabulary entry t / 2; t odd, (t - 1) / 2 bytes
 * of UTF-8 follow. Every text is a template: U+0000 stands for the search's
 * username (only where the username stands alone, between characters that are
 * not letters or digits, so a platform's templates stay few).
 * Format 0 (byte 0 = 0): UTF-8 JSON of the outcome follows, for any outcome
 * format 1 cannot give back exactly (never seen from the engine).
 * Bytes that start with `{` are an outcome stored as JSON before this format:
 * decoded as such, so data written by earlier releases still reads.
 */
import type { Category } from '../catalogue/categories.js';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../engine/verdict/outcome.js';

/*
 * The codes of format 1: stored data refers to these positions, so they are
 * append-only, never reordered (the unions they mirror may be, for display).
 * A value not listed here is stored in format 0; the unit test fails until it is appended.
 */
export const STATUS_CODES: readonly OutcomeStatus[] = ['hit', 'miss', 'unknown', 'error', 'invalid'];
export const CATEGORY_CODES: readonly Category[] = [
  'social',
  'coding',
  'tech',
  'gaming',
  'music',
  'video',
  'art',
  'images',
  'blog',
  'forum',
  'news',
  'political',
  'business',
  'finance',
  'crypto',
  'shopping',
  'dating',
  'hobby',
  'sports',
  'health',
  'education',
  'archived',
  'misc',
  'nsfw',
];
export const REASON_CODES: readonly OutcomeReason[] = [
  'waf',
  'captcha',
  'rate_limited',
  'unexpected_response',
  'budget_exhausted',
  'timeout',
  'dns',
  'connection',
  'tls',
  'blocked_destination',
  'internal',
  'username_rule',
  'unsafe_username',
  'rule_drift',
  'needs_browser',
  'session_required',
  'no_miss_rule',
];

/** What a backend keeps once and refers to by number: the id of a text, or undefined to write it out. */
export type VocabularyIds = (template: string) => number | undefined;
/** The text of a vocabulary id (throws if the backend has none: the data is damaged). */
export type VocabularyTexts = (id: number) => string;

const FORMAT_JSON = 0;
const FORMAT_COMPACT = 1;
const LEGACY_JSON = 0x7b; // '{'
const USERNAME = '\u0000';

/** A status's stored code (its position in STATUS_CODES): what every backend persists for it. */
export const STATUS_INDEX: ReadonlyMap<string, number> = new Map(
  STATUS_CODES.map((s, i) => [s as string, i]),
);
const CATEGORY_INDEX = new Map(CATEGORY_CODES.map((c, i) => [c as string, i]));
const REASON_INDEX = new Map(REASON_CODES.map((r, i) => [r as string, i]));

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** `text` with the username, where it stands alone, replaced by U+0000. */
export function toTemplate(text: string, username: string): string {
  if (username === '' || !text.includes(username)) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf(username); at !== -1; at = text.indexOf(username, at + 1)) {
    if (at < from) continue;
    const end = at + username.length;
    if (isWordChar(text.charCodeAt(at - 1)) || isWordChar(text.charCodeAt(end))) continue;
    out += text.slice(from, at) + USERNAME;
    from = end;
  }
  return out + text.slice(from);
}

function fromTemplate(template: string, username: string): string {
  return template.includes(USERNAME) ? template.replaceAll(USERNAME, () => username) : template;
}

function isWordChar(code: number): boolean {
  // NaN (before the start, after the end) is not a word character.
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * The templates of `outcome` worth keeping in a vocabulary: those a platform
 * repeats in every search (its name and id, its address with the username
 * taken out, the catalogue rule that decided). Texts that vary by search
 * (transport errors, waits, addresses the username is not plainly in) are
 * written out, so the vocabulary grows with the catalogue, never with use.
 */
export function vocabularyOf(outcome: Outcome, username: string): string[] {
  const texts = [outcome.platform, outcome.platformId];
  const url = toTemplate(outcome.url, username);
  if (url.includes(USERNAME)) texts.push(url);
  const finalUrl = outcome.evidence.finalUrl;
  if (finalUrl !== undefined && finalUrl !== outcome.url) {
    const template = toTemplate(finalUrl, username);
    if (template.includes(USERNAME)) texts.push(template);
  }
  if (ruleFromCatalogue(outcome)) texts.push(toTemplate(outcome.evidence.rule, username));
  // A control that read hit or miss was decided by a catalogue rule too.
  const control = controlParts(outcome.evidence.control);
  if (control && (STATUS_CODES[control.status] === 'hit' || STATUS_CODES[control.status] === 'miss'))
    texts.push(toTemplate(control.rule, username));
  return texts;
}

/** Rules of answered checks come from the catalogue (signals, shields); the others carry measurements. */
function ruleFromCatalogue(outcome: Outcome): boolean {
  return (
    outcome.status === 'hit' ||
    outcome.status === 'miss' ||
    (outcome.status === 'unknown' && outcome.evidence.httpStatus !== undefined)
  );
}

/**
 * The bytes every writer writes into, copied out by `done`: an outcome is written
 * on each check (twice: for its search and for the cache), and a buffer grown
 * from 64 bytes and each text encoded apart were most of the encoding's cost.
 * Taken by one writer at a time (writers never nest); a writer that finds it
 * taken has a buffer of its own.
 */
let scratch = new Uint8Array(4096);
let scratchTaken = false;

class Writer {
  #bytes: Uint8Array;
  #length = 0;
  #shared: boolean;

  constructor() {
    this.#shared = !scratchTaken;
    scratchTaken = true;
    this.#bytes = this.#shared ? scratch : new Uint8Array(64);
  }

  #room(n: number): void {
    if (this.#length + n <= this.#bytes.length) return;
    const bigger = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + n));
    bigger.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = bigger;
    if (this.#shared) scratch = bigger;
  }

  byte(b: number): void {
    this.#room(1);
    this.#bytes[this.#length++] = b;
  }

  /** A non-negative safe integer; arithmetic, not bit operations, past 2^31. */
  varint(n: number): void {
    let rest = n;
    while (rest >= 0x80) {
      this.byte((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.byte(rest);
  }

  raw(bytes: Uint8Array): void {
    this.#room(bytes.length);
    this.#bytes.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  text(template: string, ids: VocabularyIds): void {
    const id = ids(template);
    if (id !== undefined) {
      this.varint(id * 2);
      return;
    }
    // UTF-8 straight into the buffer; a lone surrogate counts as U+FFFD in both.
    const length = Buffer.byteLength(template, 'utf8');
    this.varint(length * 2 + 1);
    this.#room(length);
    const { written } = utf8.encodeInto(template, this.#bytes.subarray(this.#length, this.#length + length));
    if (written !== length) throw new RangeError('compact outcome: a text encoded to an unexpected length');
    this.#length += length;
  }

  /** The bytes written, copied; the writer is not used again. */
  done(): Uint8Array {
    const bytes = this.#bytes.slice(0, this.#length);
    this.release();
    return bytes;
  }

  /** Gives the shared buffer back (done does); for a writer left unfinished. */
  release(): void {
    if (this.#shared) scratchTaken = false;
    this.#shared = false;
  }
}

class Reader {
  #at = 0;
  constructor(readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.#at >= this.bytes.length) throw new RangeError('compact outcome: truncated');
    return this.bytes[this.#at++]!;
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
  }

  text(username: string, texts: VocabularyTexts): string {
    const t = this.varint();
    if (t % 2 === 0) return fromTemplate(texts(t / 2), username);
    const length = (t - 1) / 2;
    const end = this.#at + length;
    if (end > this.bytes.length) throw new RangeError('compact outcome: truncated');
    const template = fromUtf8.decode(this.bytes.subarray(this.#at, end));
    this.#at = end;
    return fromTemplate(template, username);
  }

  /** The next `length` bytes, as a view. */
  slice(length: number): Uint8Array {
    const end = this.#at + length;
    if (end > this.bytes.length) throw new RangeError('compact outcome: truncated');
    const part = this.bytes.subarray(this.#at, end);
    this.#at = end;
    return part;
  }

  /** Vocabulary id of the next text, or undefined when it is written out (skipped). */
  textId(): number | undefined {
    const t = this.varint();
    if (t % 2 === 0) return t / 2;
    this.#at += (t - 1) / 2;
    return undefined;
  }

  get ended(): boolean {
    return this.#at === this.bytes.length;
  }
}

const F_REASON = 1 << 3;
const F_HTTP_STATUS = 1 << 4;
const F_FINAL_URL_SAME = 1 << 5;
const F_FINAL_URL_TEXT = 2 << 5;
const F_BYTES_READ = 1 << 7;
const F_CACHED_AT = 1 << 8;
/** Fields beyond the core (a hit's profile, linkedFrom, the evidence's snippet and control) follow as JSON. */
const F_EXTRAS = 1 << 9;
/** The evidence's control line follows in parts (its rule a catalogue text, its time a number). */
const F_CONTROL = 1 << 10;
/** The evidence's cachedAt is its last key (after the extras and the control), as the outcome cache keeps it. */
const F_CACHED_AT_LAST = 1 << 11;

/** The parts of a control line (engine/controls/control.ts describeControl), which render back to it. */
interface ControlParts {
  readonly name: string;
  readonly status: number;
  readonly reason: number | undefined;
  readonly rule: string;
  readonly at: number;
  readonly rest: string;
}

const CONTROL_LINE =
  /^control ("(?:[^"\\]|\\.)*") read ([a-z]+)(?:\/([a-z_]+))? \((.*)\) at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)(.*)$/s;

function renderControl(c: ControlParts): string {
  const read =
    c.reason === undefined ? STATUS_CODES[c.status] : `${STATUS_CODES[c.status]}/${REASON_CODES[c.reason]}`;
  return `control ${JSON.stringify(c.name)} read ${read} (${c.rule}) at ${new Date(c.at).toISOString()}${c.rest}`;
}

/**
 * The last line `controlParts` read, and its parts: an outcome's control line is read for its
 * vocabulary and its encoding, for its search and again for the cache, four times in a row.
 */
let lastControlLine: string | undefined;
let lastControlParts: ControlParts | undefined;

/** The parts of `line`, or undefined when it is not a control line they give back exactly. */
function controlParts(line: unknown): ControlParts | undefined {
  if (typeof line !== 'string') return undefined;
  if (line !== lastControlLine) {
    lastControlParts = parseControl(line);
    lastControlLine = line;
  }
  return lastControlParts;
}

function parseControl(line: string): ControlParts | undefined {
  const m = CONTROL_LINE.exec(line);
  if (!m) return undefined;
  let name: unknown;
  try {
    name = JSON.parse(m[1]!);
  } catch {
    return undefined;
  }
  const status = STATUS_INDEX.get(m[2]!);
  const reason = m[3] === undefined ? undefined : REASON_INDEX.get(m[3]);
  const at = Date.parse(m[5]!);
  if (typeof name !== 'string' || status === undefined || (m[3] !== undefined && reason === undefined))
    return undefined;
  if (!Number.isSafeInteger(at) || at < 0) return undefined;
  const parts: ControlParts = Object.freeze({ name, status, reason, rule: m[4]!, at, rest: m[6]! });
  if (notTemplateSafe(parts.name) || notTemplateSafe(parts.rule) || notTemplateSafe(parts.rest))
    return undefined;
  return renderControl(parts) === line ? parts : undefined;
}

/** What an outcome holds beyond format 1's core fields, kept as JSON after them. */
interface Extras {
  /** Outcome fields after `evidence`, in order. */
  o?: Record<string, unknown>;
  /** Evidence fields beyond the core ones. */
  e?: Record<string, unknown>;
  /** The evidence's key order, when the extra fields are not all after the core ones. */
  k?: readonly string[];
}

/**
 * The fields of `value` beyond `core` (undefined: none) and its keys, or undefined when a core key
 * is out of order or a value is undefined. Run for every check, twice: nothing is allocated for
 * an outcome without extras (`for...in` reads the keys of an object of a known shape from V8's
 * cache, where `Object.keys` makes an array).
 */
function extrasOf(
  value: Record<string, unknown>,
  core: readonly string[],
  coreFirst: boolean,
): { extra: Record<string, unknown> | undefined; order: readonly string[] } | undefined {
  let extra: Record<string, unknown> | undefined;
  let coreSeen = 0;
  let i = 0;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (core.includes(k)) {
      // Core keys in the core's order; the outcome's own extras all after its core fields
      // (they are appended by the engine).
      if (k !== core[coreSeen] || (coreFirst && i !== coreSeen)) return undefined;
      coreSeen++;
    } else {
      if (value[k] === undefined) return undefined;
      extra ??= {};
      extra[k] = value[k];
    }
    i++;
  }
  if (coreSeen !== core.length) return undefined;
  // Without extras its keys are the core's, in order.
  return { extra, order: extra ? Object.keys(value) : core };
}

/**
 * `outcome` for the search of `username`, in format 1 when it decodes back to
 * exactly the same outcome, else format 0. `ids` gives the vocabulary id of a
 * template (from `vocabularyOf`), undefined to write it out.
 */
export function encodeOutcome(
  outcome: Outcome,
  username: string,
  ids: VocabularyIds = () => undefined,
): Uint8Array {
  const compact = encodeCompact(outcome, username, ids);
  if (compact !== undefined) return compact;
  const json = utf8.encode(JSON.stringify(outcome));
  const bytes = new Uint8Array(json.length + 1);
  bytes[0] = FORMAT_JSON;
  bytes.set(json, 1);
  return bytes;
}

function encodeCompact(outcome: Outcome, username: string, ids: VocabularyIds): Uint8Array | undefined {
  const e = outcome.evidence;
  const status = STATUS_INDEX.get(outcome.status);
  const category = CATEGORY_INDEX.get(outcome.category);
  const reason = outcome.reason === undefined ? undefined : REASON_INDEX.get(outcome.reason);
  if (
    status === undefined ||
    category === undefined ||
    (outcome.reason !== undefined && reason === undefined)
  )
    return undefined;
  // Exactly what decodeOutcome builds, or format 0: the same keys in the same order, and texts
  // that survive UTF-8 and templating unchanged (no U+0000, no lone surrogate).
  const oCore = outcomeKeys(outcome);
  const eCore = evidenceKeys(e);
  const oExtras = extrasOf(outcome as unknown as Record<string, unknown>, oCore, true);
  const eExtras = extrasOf(e as unknown as Record<string, unknown>, eCore, false);
  if (!oExtras || !eExtras) return undefined;
  const extras: Extras = {};
  if (oExtras.extra) extras.o = oExtras.extra;
  let eExtra = eExtras.extra;
  const control = controlParts(eExtra?.control);
  if (control && eExtra) {
    delete eExtra.control;
    if (Object.keys(eExtra).length === 0) eExtra = undefined;
  }
  let cachedAtLast = false;
  if (eExtra || control) {
    if (eExtra) extras.e = eExtra;
    // Decoded in this order: the core, the JSON extras, then the control (then cachedAt, with bit 11).
    const defaultOrder = [...eCore, ...(eExtra ? Object.keys(eExtra) : []), ...(control ? ['control'] : [])];
    const cachedLast = [...defaultOrder.filter((k) => k !== 'cachedAt'), 'cachedAt'];
    if (e.cachedAt !== undefined && eExtras.order.every((k, i) => k === cachedLast[i])) cachedAtLast = true;
    else if (eExtras.order.some((k, i) => k !== defaultOrder[i])) extras.k = eExtras.order;
  }
  const extrasJson = extras.o || extras.e || extras.k ? JSON.stringify(extras) : undefined;
  if (
    notTemplateText(outcome.platform) ||
    notTemplateText(outcome.platformId) ||
    notTemplateText(outcome.url) ||
    notTemplateText(e.rule) ||
    (e.finalUrl !== undefined && notTemplateText(e.finalUrl))
  )
    return undefined;
  if (
    notCount(outcome.responseTime) ||
    notCount(e.attempts) ||
    notCount(e.httpStatus) ||
    notCount(e.bytesRead) ||
    notCount(e.cachedAt)
  )
    return undefined;

  const w = new Writer();
  try {
    w.byte(FORMAT_COMPACT);
    w.varint(
      status |
        (reason !== undefined ? F_REASON : 0) |
        (e.httpStatus !== undefined ? F_HTTP_STATUS : 0) |
        (e.finalUrl === undefined ? 0 : e.finalUrl === outcome.url ? F_FINAL_URL_SAME : F_FINAL_URL_TEXT) |
        (e.bytesRead !== undefined ? F_BYTES_READ : 0) |
        (e.cachedAt !== undefined ? F_CACHED_AT : 0) |
        (extrasJson !== undefined ? F_EXTRAS : 0) |
        (control ? F_CONTROL : 0) |
        (cachedAtLast ? F_CACHED_AT_LAST : 0),
    );
    w.byte(category);
    if (reason !== undefined) w.varint(reason);
    w.text(outcome.platform, ids);
    w.text(outcome.platformId, ids);
    w.text(toTemplate(outcome.url, username), ids);
    w.varint(outcome.responseTime);
    if (e.httpStatus !== undefined) w.varint(e.httpStatus);
    if (e.finalUrl !== undefined && e.finalUrl !== outcome.url) w.text(toTemplate(e.finalUrl, username), ids);
    w.text(toTemplate(e.rule, username), ids);
    w.varint(e.attempts);
    if (e.bytesRead !== undefined) w.varint(e.bytesRead);
    if (e.cachedAt !== undefined) w.varint(e.cachedAt);
    if (extrasJson !== undefined) w.text(extrasJson, () => undefined);
    if (control) {
      w.text(control.name, () => undefined);
      w.varint(control.status);
      w.varint(control.reason === undefined ? 0 : control.reason + 1);
      w.text(toTemplate(control.rule, username), ids);
      w.varint(control.at);
      w.text(control.rest, () => undefined);
    }
    return w.done();
  } finally {
    w.release();
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A text that would not come back as it is from a template (it holds U+0000 or a lone surrogate). */
function notTemplateSafe(text: string): boolean {
  return text.includes(USERNAME) || LONE_SURROGATE.test(text);
}

/** `notTemplateSafe`, or not a string at all. */
function notTemplateText(text: unknown): boolean {
  return typeof text !== 'string' || notTemplateSafe(text);
}

/** Present and not a non-negative safe integer (what a varint holds). */
function notCount(n: number | undefined): boolean {
  return n !== undefined && !(Number.isSafeInteger(n) && n >= 0);
}

const OUTCOME_KEYS: readonly string[] = Object.freeze([
  'platform',
  'platformId',
  'category',
  'url',
  'status',
  'responseTime',
  'evidence',
]);
const OUTCOME_KEYS_WITH_REASON: readonly string[] = Object.freeze([
  'platform',
  'platformId',
  'category',
  'url',
  'status',
  'reason',
  'responseTime',
  'evidence',
]);

/** The keys of an outcome as src/engine/verdict/outcome.ts builds it (and decodeOutcome gives back), in order. */
function outcomeKeys(o: Outcome): readonly string[] {
  return o.reason === undefined ? OUTCOME_KEYS : OUTCOME_KEYS_WITH_REASON;
}

/** Evidence keys by which of httpStatus, finalUrl, bytesRead and cachedAt it has (bits 0-3). */
const EVIDENCE_KEYS: readonly (readonly string[])[] = Array.from({ length: 16 }, (_, has) =>
  Object.freeze([
    ...(has & 1 ? ['httpStatus'] : []),
    ...(has & 2 ? ['finalUrl'] : []),
    'rule',
    'attempts',
    ...(has & 4 ? ['bytesRead'] : []),
    ...(has & 8 ? ['cachedAt'] : []),
  ]),
);

function evidenceKeys(e: Outcome['evidence']): readonly string[] {
  return EVIDENCE_KEYS[
    (e.httpStatus !== undefined ? 1 : 0) |
      (e.finalUrl !== undefined ? 2 : 0) |
      (e.bytesRead !== undefined ? 4 : 0) |
      (e.cachedAt !== undefined ? 8 : 0)
  ]!;
}

/** The outcome `encodeOutcome` was given. `texts` gives the template of each vocabulary id. */
export function decodeOutcome(bytes: Uint8Array, username: string, texts: VocabularyTexts): Outcome {
  if (bytes[0] === FORMAT_JSON) return JSON.parse(fromUtf8.decode(bytes.subarray(1))) as Outcome;
  if (bytes[0] === LEGACY_JSON) return JSON.parse(fromUtf8.decode(bytes)) as Outcome;
  if (bytes[0] !== FORMAT_COMPACT) throw new RangeError(`compact outcome: unknown format ${bytes[0]}`);
  const r = new Reader(bytes);
  r.byte();
  const flags = r.varint();
  const category = CATEGORY_CODES[r.byte()]!;
  const reason = flags & F_REASON ? REASON_CODES[r.varint()] : undefined;
  const platform = r.text(username, texts);
  const platformId = r.text(username, texts);
  const url = r.text(username, texts);
  const responseTime = r.varint();
  const httpStatus = flags & F_HTTP_STATUS ? r.varint() : undefined;
  const finalUrlMode = flags & (3 << 5);
  const finalUrl =
    finalUrlMode === F_FINAL_URL_SAME
      ? url
      : finalUrlMode === F_FINAL_URL_TEXT
        ? r.text(username, texts)
        : undefined;
  const rule = r.text(username, texts);
  const attempts = r.varint();
  const bytesRead = flags & F_BYTES_READ ? r.varint() : undefined;
  const cachedAt = flags & F_CACHED_AT ? r.varint() : undefined;
  const extras = flags & F_EXTRAS ? (JSON.parse(r.text('', texts)) as Extras) : undefined;
  let control: string | undefined;
  if (flags & F_CONTROL) {
    const name = r.text('', texts);
    const status = r.varint();
    const reason = r.varint();
    control = renderControl({
      name,
      status,
      reason: reason === 0 ? undefined : reason - 1,
      rule: r.text(username, texts),
      at: r.varint(),
      rest: r.text('', texts),
    });
  }
  if (!r.ended) throw new RangeError('compact outcome: trailing bytes');
  // Key order as src/engine/verdict/outcome.ts builds outcomes, so JSON answers read byte for byte the
  // same; built by assignment, which is several times faster here than spreads.
  const evidence: { -readonly [K in keyof Outcome['evidence']]: Outcome['evidence'][K] } = {} as never;
  if (httpStatus !== undefined) evidence.httpStatus = httpStatus;
  if (finalUrl !== undefined) evidence.finalUrl = finalUrl;
  evidence.rule = rule;
  evidence.attempts = attempts;
  if (bytesRead !== undefined) evidence.bytesRead = bytesRead;
  const cachedAtLast = (flags & F_CACHED_AT_LAST) !== 0;
  if (cachedAt !== undefined && !cachedAtLast) evidence.cachedAt = cachedAt;
  if (extras?.e) Object.assign(evidence, extras.e);
  if (control !== undefined) (evidence as { control?: string }).control = control;
  if (cachedAt !== undefined && cachedAtLast) evidence.cachedAt = cachedAt;
  const ordered = extras?.k
    ? (Object.fromEntries(
        extras.k.map((k) => [k, (evidence as Record<string, unknown>)[k]]),
      ) as typeof evidence)
    : evidence;
  const outcome: { -readonly [K in keyof Outcome]: Outcome[K] } = {
    platform,
    platformId,
    category,
    url,
    status: STATUS_CODES[flags & 7]!,
  } as never;
  if (reason !== undefined) outcome.reason = reason;
  outcome.responseTime = responseTime;
  outcome.evidence = ordered;
  if (extras?.o) Object.assign(outcome, extras.o);
  return outcome;
}

/** The vocabulary ids `bytes` refers to: what a backend with a remote vocabulary fetches before decoding. */
export function vocabularyIdsIn(bytes: Uint8Array): number[] {
  if (bytes[0] !== FORMAT_COMPACT) return [];
  const r = new Reader(bytes);
  r.byte();
  const flags = r.varint();
  r.byte();
  if (flags & F_REASON) r.varint();
  const ids: (number | undefined)[] = [r.textId(), r.textId(), r.textId()];
  r.varint();
  if (flags & F_HTTP_STATUS) r.varint();
  if ((flags & (3 << 5)) === F_FINAL_URL_TEXT) ids.push(r.textId());
  ids.push(r.textId());
  if (flags & F_CONTROL) {
    r.varint();
    if (flags & F_BYTES_READ) r.varint();
    if (flags & F_CACHED_AT) r.varint();
    if (flags & F_EXTRAS) r.textId();
    r.textId();
    r.varint();
    r.varint();
    ids.push(r.textId());
  }
  return ids.filter((id): id is number => id !== undefined);
}

/** A list of non-negative integers as varints (e.g. a search's platforms as vocabulary ids). */
export function encodeVarints(numbers: readonly number[]): Uint8Array {
  const w = new Writer();
  for (const n of numbers) w.varint(n);
  return w.done();
}

export function decodeVarints(bytes: Uint8Array): number[] {
  const r = new Reader(bytes);
  const numbers: number[] = [];
  while (!r.ended) numbers.push(r.varint());
  return numbers;
}

/** Byte strings end to end, each after its length as a varint, after their count. */
export function joinLengthPrefixed(parts: readonly Uint8Array[]): Uint8Array {
  const w = new Writer();
  w.varint(parts.length);
  for (const part of parts) {
    w.varint(part.length);
    w.raw(part);
  }
  return w.done();
}

/** The byte strings `joinLengthPrefixed` was given (views into `bytes`). */
export function splitLengthPrefixed(bytes: Uint8Array): Uint8Array[] {
  const r = new Reader(bytes);
  const count = r.varint();
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) parts.push(r.slice(r.varint()));
  if (!r.ended) throw new RangeError('compact outcome: trailing bytes');
  return parts;
}
