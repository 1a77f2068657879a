/**
 * Operator sessions: the cookies or headers of a login an operator gives a platform,
 * sent only to that platform's check host, over the check URL's own scheme and port
 * (never on a redirect to plain http or another port). Parsed and validated once, then frozen,
 * in classes whose values never serialise: JSON, util.inspect and string conversion
 * all give "[redacted]", so a session logged or returned by accident shows nothing.
 * Pure: the file and the setting are read by the caller (create-engine.ts).
 */
import type { Platform } from '../../catalogue/platform.js';
import { fixedOrigin } from '../../catalogue/template.js';
import { UserscoutError } from '../../errors.js';

export const REDACTED = '[redacted]';
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** What an operator gives one platform: cookies (name -> value) and/or headers (name -> value). */
export interface SessionSpec {
  readonly cookies?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

type Pairs = readonly (readonly [string, string])[];

/** RFC 9110 token: what a header or cookie name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A cookie value may not hold `;`, `,`, a quote, a backslash, a space or a control character. */
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
/** A header value: visible characters, spaces and tabs, never CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;
/** Whatever prints or serialises one shows REDACTED: a secret never reaches a log, an answer or an error. */
class Redacted {
  toJSON(): string {
    return REDACTED;
  }
  toString(): string {
    return REDACTED;
  }
  [INSPECT](): string {
    return REDACTED;
  }
}

/** Headers the connection owns: a session may not set them. */
const OWNED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'cookie']);

/** One platform's session, bound to the one origin its checks go to. */
export class Session extends Redacted {
  readonly #origin: string;
  readonly #host: string;
  readonly #cookies: Pairs;
  readonly #headers: Pairs;

  /** `origin`: `scheme://host[:port]`, as URL.origin gives it. */
  constructor(origin: string, cookies: Pairs, headers: Pairs) {
    super();
    const url = new URL(origin);
    this.#origin = url.origin;
    this.#host = url.hostname;
    this.#cookies = Object.freeze(cookies.map((pair) => Object.freeze([...pair] as const)));
    this.#headers = Object.freeze(headers.map((pair) => Object.freeze([...pair] as const)));
    Object.freeze(this);
  }

  /** The host it is sent to (not a secret). */
  get host(): string {
    return this.#host;
  }

  /** Whether it sets headers other than cookies (a browser cannot scope those to one host). */
  get hasHeaders(): boolean {
    return this.#headers.length > 0;
  }

  /** Whether `url` goes to its origin (host, scheme and port): the only requests it is added to. */
  covers(url: string): boolean {
    try {
      return new URL(url).origin === this.#origin;
    } catch {
      return false;
    }
  }

  /**
   * `headers` with the session added when `url` goes to its host (cookies appended to any
   * the request carries, its headers replacing ones of the same name); `headers` as they
   * are for any other host.
   */
  addTo(url: string, headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    if (!this.covers(url)) return headers;
    const out: Record<string, string> = {};
    const replaced = new Set(this.#headers.map(([name]) => name.toLowerCase()));
    let cookie: string | undefined;
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase();
      if (key === 'cookie') cookie = cookie === undefined ? value : `${cookie}; ${value}`;
      else if (!replaced.has(key)) out[name] = value;
    }
    const ours = this.#cookies.map(([name, value]) => `${name}=${value}`).join('; ');
    if (ours) cookie = cookie ? `${cookie}; ${ours}` : ours;
    if (cookie !== undefined) out.cookie = cookie;
    for (const [name, value] of this.#headers) out[name] = value;
    return out;
  }

  /** Its cookies as a browser context takes them: host-only cookies of its origin. */
  browserCookies(): { name: string; value: string; url: string; secure: boolean }[] {
    // Secure over https: Chromium then never sends them on a redirect to plain http.
    const secure = this.#origin.startsWith('https:');
    return this.#cookies.map(([name, value]) => ({ name, value, url: `${this.#origin}/`, secure }));
  }
}

/** Where a set of sessions came from, for error messages: the setting's name (never its value). */
export interface SessionSource {
  /** e.g. `sessionsFile (USERSCOUT_SESSIONS_FILE) /etc/userscout/sessions.json`. */
  readonly setting: string;
  readonly text: string;
}

function sessionError(setting: string, problem: string): UserscoutError {
  return new UserscoutError('invalid_config', `Setting ${setting}: ${problem} (values are never shown)`, {
    details: { setting: setting.split(' ')[0] },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The pairs of one `cookies` or `headers` object, each name and value checked. */
function pairsOf(setting: string, platform: string, field: 'cookies' | 'headers', value: unknown): Pairs {
  const where = `platform ${JSON.stringify(platform)}: ${field}`;
  if (value === undefined) return [];
  if (!isRecord(value)) throw sessionError(setting, `${where} must be an object of name -> text`);
  const pairs: [string, string][] = [];
  for (const [name, text] of Object.entries(value)) {
    const named = `${where} ${JSON.stringify(name)}`;
    if (!TOKEN.test(name)) throw sessionError(setting, `${named} is not a valid ${field.slice(0, -1)} name`);
    if (typeof text !== 'string') throw sessionError(setting, `${named} must have a text value`);
    if (field === 'cookies' && !COOKIE_VALUE.test(text))
      throw sessionError(
        setting,
        `${named} has a value with a character a cookie cannot hold (; , " \\ a space or a control character)`,
      );
    if (field === 'headers') {
      if (OWNED_HEADERS.has(name.toLowerCase()))
        throw sessionError(setting, `${named} is set by the connection itself (give cookies as cookies)`);
      if (!HEADER_VALUE.test(text))
        throw sessionError(setting, `${named} has a value with a line break or a control character`);
    }
    pairs.push([name, text]);
  }
  return pairs;
}

interface Entry {
  readonly cookies: Pairs;
  readonly headers: Pairs;
  readonly setting: string;
}

/**
 * The sessions an operator configured, by platform name. Frozen once made; a
 * platform's session is bound to its check host when first asked for.
 */
export class Sessions extends Redacted {
  readonly #entries: ReadonlyMap<string, Entry>;
  /** Bound sessions by platform (undefined: none can be sent). */
  readonly #bound = new WeakMap<Platform, Session | null>();

  private constructor(entries: ReadonlyMap<string, Entry>) {
    super();
    this.#entries = entries;
    Object.freeze(this);
  }

  static readonly none = new Sessions(new Map());

  /**
   * Parses each source (a JSON object: platform name -> { cookies, headers }); a platform
   * named by two sources is refused. Errors name the setting and the platform, never a value.
   */
  static parse(sources: readonly SessionSource[]): Sessions {
    const entries = new Map<string, Entry>();
    for (const { setting, text } of sources) {
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        // The parser's message quotes the text: never passed on.
        throw sessionError(setting, 'is not valid JSON');
      }
      if (!isRecord(data))
        throw sessionError(
          setting,
          'must be a JSON object of platform name -> { "cookies": {...} } or { "headers": {...} }',
        );
      for (const [platform, spec] of Object.entries(data)) {
        const where = `platform ${JSON.stringify(platform)}`;
        if (!isRecord(spec))
          throw sessionError(setting, `${where} must be an object with cookies and/or headers`);
        const extra = Object.keys(spec).find((key) => key !== 'cookies' && key !== 'headers');
        if (extra !== undefined)
          throw sessionError(
            setting,
            `${where} has ${JSON.stringify(extra)}; only cookies and headers are known`,
          );
        const cookies = pairsOf(setting, platform, 'cookies', spec.cookies);
        const headers = pairsOf(setting, platform, 'headers', spec.headers);
        if (cookies.length + headers.length === 0)
          throw sessionError(setting, `${where} gives no cookie and no header`);
        const earlier = entries.get(platform);
        if (earlier)
          throw sessionError(setting, `${where} is given a session by ${earlier.setting.split(' ')[0]} too`);
        entries.set(platform, { cookies, headers, setting });
      }
    }
    return entries.size === 0 ? Sessions.none : new Sessions(entries);
  }

  /** The platform names given a session (not secret). */
  get platforms(): readonly string[] {
    return [...this.#entries.keys()];
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Refuses sessions the catalogue cannot send: one for a platform it does not hold, or for
   * a platform whose check host holds the name, or a header session for one that goes by browser.
   */
  assertSendable(platforms: readonly Platform[]): void {
    const byName = new Map(platforms.map((p) => [p.name, p]));
    for (const [name, entry] of this.#entries) {
      const where = `platform ${JSON.stringify(name)}`;
      const platform = byName.get(name);
      if (!platform) throw sessionError(entry.setting, `${where} is not in the catalogue`);
      if (fixedOrigin(platform.check.url) === undefined)
        throw sessionError(
          entry.setting,
          `${where} checks a host that holds the username: a session cannot be scoped to it`,
        );
      if (platform.transport === 'browser' && entry.headers.length > 0)
        throw sessionError(
          entry.setting,
          `${where} goes by browser, which can scope cookies to its host but not headers: give cookies`,
        );
    }
  }

  /** The session to send with `platform`'s checks, bound to its check origin; undefined: none. */
  for(platform: Platform): Session | undefined {
    if (this.#entries.size === 0) return undefined;
    let bound = this.#bound.get(platform);
    if (bound === undefined) {
      const entry = this.#entries.get(platform.name);
      const origin = fixedOrigin(platform.check.url);
      bound = entry && origin ? new Session(origin, entry.cookies, entry.headers) : null;
      this.#bound.set(platform, bound);
    }
    return bound ?? undefined;
  }
}
