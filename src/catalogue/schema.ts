/**
 * The catalogue file format, as written by people. `loader.ts` validates files
 * against it and turns entries into frozen `Platform` objects (`platform.ts`).
 * `npm run schema` writes the JSON Schema of this file to `docs/catalogue.schema.json`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { CATEGORIES } from './categories.js';
import { PROFILE_FIELDS } from './profile-fields.js';

const strict = { additionalProperties: false } as const;

/**
 * A host name as `otherHosts` takes it: lower-case dot-separated labels of letters, digits
 * and inner dashes, ending in a top-level name of letters or punycode (no scheme, port, path).
 */
export const OTHER_HOST_PATTERN =
  '^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$';

const HttpStatus = Type.Integer({ minimum: 100, maximum: 599 });

/** The single facts a signal can state; each names its kind by its one key. */
const BASIC_SIGNALS = [
  Type.Object(
    { status: Type.Array(HttpStatus, { minItems: 1, description: 'The HTTP status is one of these' }) },
    strict,
  ),
  Type.Object(
    {
      text: Type.String({
        minLength: 1,
        description:
          'The body contains this text (case-sensitive). {username} in it stands for the name checked, as its request carried it, a character no name holds right before and after it (its own link, /u/{username}"): the page names the account',
      }),
    },
    strict,
  ),
  Type.Object(
    {
      regex: Type.String({
        minLength: 1,
        description:
          'The body matches this regular expression, in RE2 syntax (run in linear time: no lookaround, no backreferences)',
      }),
      flags: Type.Optional(Type.String({ pattern: '^[imsu]*$', description: 'Regex flags: i, m, s, u' })),
    },
    strict,
  ),
  Type.Object(
    {
      redirect: Type.String({
        description:
          'The response redirected to a URL containing this text ("" = any redirect). With redirects "manual" it reads the Location header of a 3xx; with "follow" the final URL.',
      }),
    },
    strict,
  ),
  Type.Object(
    {
      json: Type.String({
        minLength: 1,
        description:
          'A dot path into the JSON body (array indexes as numbers: data.users.0.id) that is present and not null',
      }),
      equals: Type.Optional(
        Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
          description: 'The value at the path equals this',
        }),
      ),
    },
    strict,
  ),
  Type.Object(
    {
      header: Type.String({ minLength: 1, description: 'A response header with this name is present' }),
      value: Type.Optional(Type.String({ description: 'and its value contains this text' })),
    },
    strict,
  ),
];

const BASIC_DESCRIPTION =
  'One fact about a response: {status}, {text}, {regex}, {redirect}, {json} or {header}';

/** One fact about a response. Exactly one of the listed keys names its kind. */
export const BasicSignalSchema = Type.Union(BASIC_SIGNALS, { description: BASIC_DESCRIPTION });

/** A part of a compound signal: a fact, or a fact that must NOT hold. */
export const NotSignalSchema = Type.Object(
  { not: BasicSignalSchema },
  { ...strict, description: 'Holds when the fact inside does not (the body lacks a text, say)' },
);

/**
 * A compound signal: holds when ALL of its parts hold, for example
 * "status 200 and the body lacks X". On the missing side (ANY-of) it is the only
 * way to say AND; a group needs at least one part that is not a `not`.
 */
export const AllSignalSchema = Type.Object(
  {
    all: Type.Array(Type.Union([BasicSignalSchema, NotSignalSchema]), {
      minItems: 2,
      description: 'Every part holds (a part is a signal, or {not: signal})',
    }),
  },
  { ...strict, description: 'Holds when all of its parts hold' },
);

/** A signal of a detect list: one fact, or a group of facts that all hold. */
export const SignalSchema = Type.Union([...BASIC_SIGNALS, AllSignalSchema], {
  description: `${BASIC_DESCRIPTION}, or {all: [...]} of them`,
});

export const CheckSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({ minLength: 1, description: 'URL template with {username}; defaults to the profile URL' }),
    ),
    method: Type.Optional(Type.Union([Type.Literal('GET'), Type.Literal('HEAD'), Type.Literal('POST')])),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Extra request headers' }),
    ),
    body: Type.Optional(Type.String({ description: 'Body template with {username} (POST only)' })),
    bodyType: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('form'), Type.Literal('text')], {
        description: 'How the username is escaped in the body and the Content-Type sent; default json',
      }),
    ),
    redirects: Type.Optional(
      Type.Union([Type.Literal('manual'), Type.Literal('follow')], {
        description: 'manual (default): a 3xx is the answer; follow: follow up to 5 redirects',
      }),
    ),
  },
  { ...strict, description: 'The request that checks the username' },
);

export const UsernameRuleSchema = Type.Object(
  {
    pattern: Type.Optional(
      Type.String({ minLength: 1, description: 'JavaScript regex the username must match (anchor it)' }),
    ),
    lowercase: Type.Optional(
      Type.Boolean({ description: 'Lower-case the username before checking; default false' }),
    ),
    minLength: Type.Optional(Type.Integer({ minimum: 1 })),
    maxLength: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  strict,
);

export const BudgetSchema = Type.Object(
  {
    perSecond: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1000,
      description: 'Requests a second, on average, from one egress identity (0.5: one every 2 s)',
    }),
    burst: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: 'Requests allowed at once before the rate applies; default 1',
      }),
    ),
  },
  {
    ...strict,
    description:
      "The platform's own request-rate budget per egress identity, when it allows less (or more) than the configured default (USERSCOUT_BUDGET_PER_SECOND, USERSCOUT_BUDGET_BURST)",
  },
);

export const ExtractRuleSchema = Type.Union(
  [
    Type.Object(
      {
        json: Type.String({ minLength: 1, description: 'A dot path into the JSON answer (data.user.name)' }),
      },
      strict,
    ),
    Type.Object(
      { meta: Type.String({ minLength: 1, description: 'The content of <meta name|property="…">' }) },
      strict,
    ),
    Type.Object(
      {
        regex: Type.String({
          minLength: 1,
          description:
            'A regular expression over the body, in RE2 syntax (run in linear time: no lookaround, no backreferences), with a named group `value`',
        }),
        flags: Type.Optional(Type.String({ pattern: '^[imsu]*$', description: 'Regex flags: i, m, s, u' })),
      },
      strict,
    ),
  ],
  { description: 'Where one profile field is read from: {json}, {meta} or {regex}' },
);

export const ExtractSchema = Type.Object(
  {
    ...Object.fromEntries(PROFILE_FIELDS.map((field) => [field, Type.Optional(ExtractRuleSchema)])),
    ids: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]{0,39}$' }), ExtractRuleSchema, {
        description: 'Identifiers of the account by name, e.g. {"userId": {"json": "data.id"}}',
      }),
    ),
  },
  {
    ...strict,
    description:
      'Profile details of a hit, read from the answer the check already read (no extra request); the generic extractors (Open Graph, JSON-LD, rel="me") fill what these rules do not',
  },
);

export const PlatformSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80, description: 'Unique display name' }),
    category: Type.Union(
      CATEGORIES.map((c) => Type.Literal(c)),
      { description: 'One of the closed list of categories' },
    ),
    home: Type.String({ minLength: 1, description: 'Home page of the platform' }),
    profile: Type.String({ minLength: 1, description: 'URL template of a profile page, with {username}' }),
    check: Type.Optional(CheckSchema),
    detect: Type.Object(
      {
        exists: Type.Array(SignalSchema, {
          minItems: 1,
          description: 'The account exists when ALL of these hold (and no missing signal holds)',
        }),
        missing: Type.Array(SignalSchema, {
          description:
            'The account is missing when ANY of these holds; checked first. Empty: a hit-only entry, for a site with no not-found answer of its own: any answer that is not a hit reads unknown (no_miss_rule), never miss',
        }),
      },
      strict,
    ),
    username: Type.Optional(UsernameRuleSchema),
    known: Type.Object(
      {
        claimed: Type.Array(Type.String({ minLength: 1 }), {
          minItems: 1,
          description: 'Accounts that exist',
        }),
        unclaimed: Type.Array(Type.String({ minLength: 1 }), {
          minItems: 1,
          description: 'Names that have no account',
        }),
      },
      strict,
    ),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    nsfw: Type.Optional(Type.Boolean()),
    onRequest: Type.Optional(
      Type.Boolean({
        description:
          'Searched only when a search names it (by id or name) or one of its tags; default false. For the further addresses of one site (regions, namespaces) whose every check would otherwise go to that site in each search',
      }),
    ),
    otherHosts: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          maxLength: 253,
          pattern: OTHER_HOST_PATTERN,
          description: 'A host name: lower-case, no scheme, port or path (punycode for a non-Latin name)',
        }),
        {
          minItems: 1,
          uniqueItems: true,
          description:
            "Other hosts the same site answers at (an older name, a short domain, a sister site on the same accounts), never its check, profile or home host, nor another enabled entry's check host. Never checked and never sent a request: a public list that names the site at one of them is this entry's site",
        },
      ),
    ),
    enabled: Type.Optional(Type.Boolean()),
    disabledReason: Type.Optional(Type.String({ description: 'Why the platform is disabled' })),
    budget: Type.Optional(BudgetSchema),
    transport: Type.Optional(
      Type.Union([Type.Literal('http'), Type.Literal('impersonate'), Type.Literal('browser')], {
        description:
          "How its checks reach the site: 'http' (the default: Node's own HTTP client), 'impersonate' (a browser's TLS and HTTP/2 handshake and header order, for sites that refuse other handshakes), 'browser' (headless Chromium running the page's scripts, for sites that answer a JavaScript challenge)",
      }),
    ),
    session: Type.Optional(
      Type.Union([Type.Literal('optional'), Type.Literal('required')], {
        description:
          "Whether its checks need an operator's session (cookies or headers given by USERSCOUT_SESSIONS_FILE or USERSCOUT_SESSIONS): 'optional' (the default: one is sent when given) or 'required' (without one, its checks end unknown/session_required, unsent). Its check URL's host must not hold {username}: a session goes to one host only",
      }),
    ),
    extract: Type.Optional(ExtractSchema),
    notes: Type.Optional(Type.String({ description: 'Anything a maintainer should know' })),
    family: Type.Optional(
      Type.String({
        description:
          "The software the site runs (a family of src/catalogue/families.json, or of the file's own `families`): its profile, check, detect, username, extract and tags are taken from the family, with {home} this entry's home address, unless the entry gives them itself",
      }),
    ),
  },
  strict,
);

/** Fingerprint of a bot shield's challenge page. All given conditions must hold. */
export const ShieldSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    reason: Type.Union([Type.Literal('waf'), Type.Literal('captcha')]),
    status: Type.Optional(Type.Array(HttpStatus, { minItems: 1 })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Header name -> text its value contains ("" = present); all must hold',
      }),
    ),
    body: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'The body contains any of these',
      }),
    ),
    passedByScript: Type.Optional(
      Type.Boolean({
        description:
          "A challenge the page's own script passes with no one at the keyboard (it computes, sets a cookie, reloads): a browser check waits for the page to move on, within its deadline. Absent: a block page or a captcha, read as it comes",
      }),
    ),
  },
  strict,
);

/**
 * The rules many sites share because they run the same software (Discourse, XenForo, …):
 * an entry naming its `family` takes them, `{home}` standing for its home address.
 */
export const FamilySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: 'What entries name in `family`' }),
    description: Type.String({ minLength: 1, description: 'The software, and what its sites share' }),
    profile: Type.String({
      minLength: 1,
      description: 'URL template of a profile page, with {home} and {username}',
    }),
    check: Type.Optional(CheckSchema),
    detect: PlatformSchema.properties.detect,
    username: Type.Optional(UsernameRuleSchema),
    extract: Type.Optional(ExtractSchema),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: "Added to each entry's own" }),
    ),
    notes: Type.Optional(Type.String({ description: 'The note of an entry that gives none' })),
  },
  strict,
);

export const CatalogueFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    platforms: Type.Array(Type.Unknown()),
    shields: Type.Optional(Type.Array(Type.Unknown())),
    families: Type.Optional(Type.Array(Type.Unknown())),
  },
  { additionalProperties: false },
);

export type FamilySpec = Static<typeof FamilySchema>;

export type SignalSpec = Static<typeof SignalSchema>;
export type BasicSignalSpec = Static<typeof BasicSignalSchema>;
export type SignalPartSpec = BasicSignalSpec | Static<typeof NotSignalSchema>;
export type CheckSpec = Static<typeof CheckSchema>;
export type UsernameRuleSpec = Static<typeof UsernameRuleSchema>;
export type PlatformSpec = Static<typeof PlatformSchema>;
export type BudgetSpec = Static<typeof BudgetSchema>;
export type ExtractRuleSpec = Static<typeof ExtractRuleSchema>;
export type ShieldSpec = Static<typeof ShieldSchema>;
