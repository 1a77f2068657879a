/**
 * Request and response schemas of the REST API (TypeBox). Fastify validates
 * with them and @fastify/swagger turns them into the OpenAPI document.
 */

import {
  type SchemaOptions,
  type Static,
  type TLiteral,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox';
import { CATEGORIES } from '../catalogue/categories.js';
import { VARIANT_KINDS } from '../catalogue/lookalike-names.js';
import { SESSION_NEEDS, TRANSPORTS } from '../catalogue/platform.js';
import { MAX_USERNAME_LENGTH } from '../catalogue/username-rule.js';
import {
  ERROR_REASONS,
  INVALID_REASONS,
  OUTCOME_STATUSES,
  type Outcome,
  UNKNOWN_REASONS,
} from '../engine/verdict/outcome.js';
import { HEALTH_STATES } from './health-states.js';

/** One of the given strings, typed as their union (so `Static<>` of a schema is the engine's type). */
const lit = <const T extends readonly string[]>(values: T, options?: SchemaOptions) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<{
    -readonly [K in keyof T]: TLiteral<T[K]>;
  }>;

/** A `$ref` to a schema registered by its `$id`, typed as that schema (TypeBox 0.34 types a bare Ref as unknown). */
const refTo = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schema.$id!));

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people' }),
    code: Type.String({ description: 'Stable machine-readable code, e.g. invalid_username, rate_limited' }),
    requestId: Type.String({ description: 'Also in the X-Request-Id header and the server log' }),
    retryAfter: Type.Optional(Type.Integer({ description: 'Seconds to wait before retrying (429, 503)' })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'Error', description: 'The body of every 4xx and 5xx response' },
);

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const USERNAME_RULE =
  '1-100 characters, no white space, control characters or / ? # % \\ @ : < > " \' ` [ ] { } | ^';

export const StartSearchBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: MAX_USERNAME_LENGTH,
      description: `The username to search for: ${USERNAME_RULE}`,
      examples: ['alice'],
    }),
    categories: Type.Optional(
      Type.Array(lit(CATEGORIES), {
        maxItems: CATEGORIES.length,
        description: 'Only these categories (default: all)',
      }),
    ),
    platforms: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 2000,
        description: 'Only these platforms, by name or id (default: all)',
      }),
    ),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 60 }), {
        maxItems: 50,
        description:
          'Only platforms with at least one of these tags (case-insensitive), as GET /api/platforms lists them (default: all)',
      }),
    ),
    top: Type.Optional(
      Type.Boolean({
        description:
          'Only the curated set of the platforms most searched on (the large networks, code hosts, creator and gaming sites): a quick search (default false)',
      }),
    ),
    includeNsfw: Type.Optional(Type.Boolean({ description: 'Include NSFW platforms (default false)' })),
    variants: Type.Optional(
      Type.Boolean({
        description:
          'Also search lookalike names (separators, 0/o 1/l/i rn/m swaps, doubled or dropped letters, prefixes and suffixes, homoglyphs), up to the setting maxVariantsPerRequest (default 10). Each is a search of its own, on the selected platforms whose username rule accepts it, and counts as one against the search limit (default false)',
      }),
    ),
    private: Type.Optional(
      Type.Boolean({
        description:
          'Professional keys only: the search and its results are readable only with the key that started it (default false: anyone with the queryId can read them). Refused with 403 private_not_allowed without a professional key.',
      }),
    ),
    recursive: Type.Optional(
      Type.Boolean({
        description:
          "Once completed, also search the new names its hits' profiles give (links to another platform's profile of another name, and ids such as githubUsername): one follow-up search each, at most the setting maxFollowUps (default 10), on the same platforms, each counted against the search limit; follow-ups are not recursive (depth 1). The search's answer lists them in followUps (default false)",
      }),
    ),
  },
  { additionalProperties: false },
);

const startedFields = {
  queryId: Type.String({ description: 'Poll GET /api/search?id=queryId' }),
  status: Type.Literal('running'),
  totalPlatforms: Type.Integer({ description: 'Platforms this search covers' }),
  estimatedTime: Type.Integer({ description: 'Expected duration in SECONDS, queue wait included' }),
};

const variantKind = lit(VARIANT_KINDS);

export const StartSearchResponse = Type.Object(
  {
    ...startedFields,
    variants: Type.Optional(
      Type.Array(Type.Object({ username: Type.String(), kind: variantKind, ...startedFields }), {
        description: 'With variants: true, the lookalike names searched, each with its own search',
      }),
    ),
    variantsNotSearched: Type.Optional(
      Type.Array(Type.Object({ username: Type.String(), kind: variantKind }), {
        description:
          'Lookalike names generated but not searched: no selected platform accepts them (they cost nothing)',
      }),
    ),
  },
  { $id: 'SearchStarted' },
);

export const StartBatchBody = Type.Object(
  {
    usernames: Type.Array(Type.String({ minLength: 1, maxLength: MAX_USERNAME_LENGTH }), {
      minItems: 1,
      maxItems: 1000,
      uniqueItems: true,
      description: `The usernames, each ${USERNAME_RULE}; distinct; at most the setting maxBatchNames (default 25)`,
      examples: [['alice', 'bob']],
    }),
    categories: StartSearchBody.properties.categories,
    platforms: StartSearchBody.properties.platforms,
    tags: StartSearchBody.properties.tags,
    top: StartSearchBody.properties.top,
    includeNsfw: StartSearchBody.properties.includeNsfw,
    private: StartSearchBody.properties.private,
    recursive: Type.Optional(
      Type.Boolean({
        description:
          "Each name's search is recursive, as recursive on POST /api/search: once completed, it searches the new names its hits' profiles give, each follow-up counted against the search limit (the batch's all-or-none applies to the names, not to follow-ups, which start or are listed as not searched later) (default false)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const StartBatchResponse = Type.Object(
  {
    searches: Type.Array(Type.Object({ username: Type.String(), ...startedFields }), {
      description: 'One search per name, in the order given',
    }),
  },
  { $id: 'BatchStarted' },
);

export const SearchSummary = Type.Object(
  {
    queryId: Type.String(),
    username: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('error')]),
    totalPlatforms: Type.Integer({ description: 'Platforms this search covers' }),
    estimatedTime: Type.Integer({ description: 'Seconds the search was expected to take when started' }),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
    error: Type.Optional(
      Type.String({ description: 'Present when status is error; cancelled when cancelled' }),
    ),
  },
  { $id: 'SearchSummary', description: 'A search without its results: GET /api/search?id= gives them' },
);

export const SearchListQuery = Type.Object(
  {
    // A string: query values are not coerced (see app.ts).
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9]|[1-9][0-9]|100)$',
        description: 'Searches per page, 1 to 100 (default 20)',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,200}$',
        description: 'nextCursor of the previous page; absent for the first (newest) page',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SearchListResponse = Type.Object({
  searches: Type.Array(refTo(SearchSummary), { description: 'Newest first' }),
  nextCursor: Type.Optional(
    Type.String({
      description: 'Present when older searches may follow: pass it as cursor for the next page',
    }),
  ),
});

const limitState = (what: string) =>
  Type.Object({
    limit: Type.Integer({ description: `${what} allowed per window` }),
    used: Type.Integer({ description: 'Counted in the current window' }),
    remaining: Type.Integer({ description: 'Left in the current window' }),
    windowSeconds: Type.Integer({ description: 'Length of a window in SECONDS' }),
    resetsAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the current window ends; null when none is open (nothing counted yet)',
    }),
  });

export const UsageResponse = Type.Object({
  tier: Type.Union([Type.Literal('free'), Type.Literal('professional')]),
  searches: limitState('Searches'),
  requests: limitState('Other requests (polls, events, lists, this one)'),
});

export const Result = Type.Object(
  {
    platform: Type.String({ description: 'Platform name' }),
    platformId: Type.String(),
    category: lit(CATEGORIES),
    url: Type.String({ description: 'Profile page of the username on the platform' }),
    status: lit(OUTCOME_STATUSES),
    reason: Type.Optional(lit([...UNKNOWN_REASONS, ...ERROR_REASONS, ...INVALID_REASONS])),
    responseTime: Type.Integer({ description: 'MILLISECONDS the check took (0 when no request was sent)' }),
    evidence: Type.Object({
      httpStatus: Type.Optional(Type.Integer()),
      finalUrl: Type.Optional(Type.String()),
      rule: Type.String({ description: 'The rule or marker that decided' }),
      attempts: Type.Integer(),
      bytesRead: Type.Optional(Type.Integer()),
      cachedAt: Type.Optional(
        Type.Integer({ description: 'Reused from the cache: when it was decided (ms epoch)' }),
      ),
      snippet: Type.Optional(
        Type.String({
          description:
            'The text or regex marker that decided, in [brackets], with about 60 characters of the page on each side',
        }),
      ),
      control: Type.Optional(
        Type.String({
          description:
            'The control check a hit was compared with (a name that cannot exist on the platform): its name, what it read and when; a hit that reads like it is unknown/rule_drift',
        }),
      ),
      transport: Type.Optional(
        lit(TRANSPORTS, {
          description:
            "The transport that got the answer, when not http: the platform's own (catalogue `transport`), or the one a bot defence was escalated to",
        }),
      ),
    }),
    profile: Type.Optional(
      Type.Object(
        {
          fullName: Type.Optional(Type.String()),
          bio: Type.Optional(Type.String()),
          location: Type.Optional(Type.String()),
          createdAt: Type.Optional(Type.String({ description: 'As the page gives it' })),
          avatarUrl: Type.Optional(Type.String({ description: 'http(s) only' })),
          website: Type.Optional(Type.String({ description: 'http(s) only' })),
          followers: Type.Optional(Type.Integer({ minimum: 0 })),
          following: Type.Optional(Type.Integer({ minimum: 0 })),
          links: Type.Optional(
            Type.Array(Type.String(), { description: 'Pages the profile points to (http(s) only)' }),
          ),
          ids: Type.Optional(Type.Record(Type.String(), Type.String())),
        },
        {
          description:
            "A hit's profile details, read from the answer its check already read: plain text (no markup), capped in length; URLs only http(s)",
        },
      ),
    ),
    linkedFrom: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Platform ids of hits whose profiles link to this account of the searched name',
      }),
    ),
  },
  {
    $id: 'Result',
    description:
      'status: hit (account exists), miss (no account), unknown (answered but could not tell: waf (a bot shield page, or a TLS handshake the site refused), captcha, rate_limited, unexpected_response, rule_drift (the platform rule also reads a name that cannot exist as a hit), no_miss_rule (not a hit, on a hit-only platform: its site never says an account is missing); or not asked: budget_exhausted, our request budget for the origin had no slot in time, needs_browser, the platform needs a browser and none is installed (or, escalating, its defence stood through every other transport and only the browser was left: then answered); session_required, the platform needs an operator session and none is configured), error (no answer: timeout, dns, connection, tls, blocked_destination, internal), invalid (the username breaks the platform rule; nothing sent)',
  },
);

export const SearchResponse = Type.Object(
  {
    queryId: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('error')]),
    username: Type.String(),
    results: Type.Array(refTo(Result), {
      description: 'Hits found so far (every outcome with include=all), ordered by platform name',
    }),
    progress: Type.Object({
      checked: Type.Integer({ description: 'Platforms with an outcome so far, of every status' }),
      total: Type.Integer({ description: 'Platforms this search covers' }),
      hits: Type.Integer({ description: 'Outcomes with status hit' }),
      answered: Type.Integer({ description: 'Platforms that told: hit + miss' }),
      unknown: Type.Integer({ description: 'Platforms that answered but could not tell (status unknown)' }),
      errors: Type.Integer({ description: 'Platforms that could not be reached (status error)' }),
      invalid: Type.Integer({
        description: "The username breaks the platform's rule: nothing was sent (status invalid)",
      }),
      queued: Type.Boolean({ description: 'Waiting for a free slot; no platform checked yet' }),
    }),
    coverage: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'Share of the platforms checked that answered, 3 decimals: answered ÷ (answered + unknown + errors); 1 while nothing is checked. A missing hit only means "no account" where a platform answered.',
    }),
    warning: Type.Optional(
      Type.String({
        description:
          'Present when the search is completed and coverage is under the threshold (setting coverageWarningPercent, default 50%): how many answered and why the others did not',
      }),
    ),
    estimatedTime: Type.Integer({ description: 'Seconds the search was expected to take when started' }),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
    error: Type.Optional(Type.String({ description: 'Present when status is error' })),
    links: Type.Optional(
      Type.Array(
        Type.Object({
          from: Type.String({ description: 'Platform id of the hit whose profile holds the link' }),
          to: Type.String({ description: 'Platform id the link points to' }),
          username: Type.String({ description: 'The name in the link (may differ from the one searched)' }),
          url: Type.String(),
        }),
        {
          description:
            'Which accounts point to which: links in the hits’ profiles to other platforms’ profiles',
        },
      ),
    ),
    followUps: Type.Optional(
      Type.Array(
        Type.Object({
          username: Type.String({ description: 'A new name found in a hit’s profile' }),
          from: Type.String({ description: 'Platform id of the hit whose profile gave it' }),
          queryId: Type.Optional(
            Type.String({ description: 'Its follow-up search: poll GET /api/search?id=' }),
          ),
          notSearched: Type.Optional(
            Type.String({ description: 'Why no search was started for it (e.g. search limit reached)' }),
          ),
        }),
        {
          description:
            'With recursive: true, once completed: the follow-up searches started, each with the hit that led to it',
        },
      ),
    ),
    followUpsPending: Type.Optional(
      Type.Literal(true, {
        description:
          'With recursive: true, completed, while its follow-up searches are being started: followUps comes in a later answer',
      }),
    ),
  },
  { $id: 'Search' },
);

export const SearchQuery = Type.Object(
  {
    id: Type.String({ pattern: UUID_PATTERN, description: 'The queryId returned by POST /api/search' }),
    include: Type.Optional(
      Type.Union([Type.Literal('hits'), Type.Literal('all')], {
        description: 'hits (default) or all outcomes',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EventsParams = Type.Object({ id: Type.String({ pattern: UUID_PATTERN }) });
export const EventsQuery = Type.Object({
  lastEventId: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,15}$', description: 'Same as the Last-Event-ID header' }),
  ),
});

export const Platform = Type.Object(
  {
    name: Type.String(),
    id: Type.String(),
    category: lit(CATEGORIES),
    url: Type.String({ description: 'Home page of the platform' }),
    enabled: Type.Boolean(),
    nsfw: Type.Boolean(),
    tags: Type.Array(Type.String()),
    disabledReason: Type.Optional(Type.String()),
    transport: Type.Optional(
      lit(TRANSPORTS, {
        description:
          "How its checks reach the site (catalogue `transport`): http (Node's client), impersonate (a browser's handshake), browser (headless Chromium; without one installed its checks read unknown/needs_browser)",
      }),
    ),
    session: Type.Optional(
      lit(SESSION_NEEDS, {
        description:
          'required: its checks need an operator session (USERSCOUT_SESSIONS_FILE or USERSCOUT_SESSIONS) and read unknown/session_required without one; optional: one is sent when configured',
      }),
    ),
    lastValidatedAt: Type.Optional(Type.String({ format: 'date-time' })),
    health: Type.Optional(
      Type.Object(
        {
          state: lit(HEALTH_STATES),
          lastCheckedAt: Type.Optional(Type.String({ format: 'date-time' })),
          reason: Type.Optional(Type.String()),
        },
        {
          description:
            'rule_drift: a control check (a name that cannot exist) read as a hit, so hits here are unknown/rule_drift until a control reads miss; broken or blocked: the last self-check of its known accounts; healthy; unchecked: never measured. reason says why, with the control or the probes',
        },
      ),
    ),
  },
  { $id: 'Platform' },
);

export const PlatformsQuery = Type.Object({
  category: Type.Optional(
    Type.Union(
      CATEGORIES.map((c) => Type.Literal(c)),
      { description: 'Only this category; an unknown one is a 400 that lists the valid ones' },
    ),
  ),
});

export const PlatformsResponse = Type.Object({
  platforms: Type.Array(refTo(Platform)),
  total: Type.Integer({ description: 'Number of platforms in the list' }),
});

export const CategoriesResponse = Type.Object({
  categories: Type.Array(
    Type.Object({
      name: lit(CATEGORIES),
      description: Type.String(),
      platforms: Type.Integer({ description: 'Enabled platforms' }),
    }),
  ),
  total: Type.Integer(),
});

export const errorResponses = {
  400: Type.Ref('Error'),
  429: Type.Ref('Error'),
  500: Type.Ref('Error'),
};

/** The errors a request that starts searches may meet besides errorResponses: key, privacy, body size and type, a full queue or an absent store. */
export const startErrorResponses = {
  401: { $ref: 'Error#' },
  403: { $ref: 'Error#' },
  413: { $ref: 'Error#' },
  415: { $ref: 'Error#' },
  503: { $ref: 'Error#' },
  ...errorResponses,
} as const;

// The API's result is the engine's outcome: this fails to compile when either drifts from the other.
const sameShape = <A, B>(_: A extends B ? (B extends A ? true : never) : never) => undefined;
sameShape<Static<typeof Result>, Outcome>(true);
