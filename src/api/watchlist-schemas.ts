/**
 * Request and response schemas of the watchlist routes (TypeBox), apart from
 * the search schemas: the limits that depend on settings (names per list,
 * shortest interval) are checked by the route with messages that name them.
 */
import { type SchemaOptions, type TLiteral, type TUnion, Type } from '@sinclair/typebox';
import { CATEGORIES } from '../catalogue/categories.js';
import { MAX_USERNAME_LENGTH } from '../catalogue/username-rule.js';
import { OUTCOME_STATUSES } from '../engine/verdict/outcome.js';
import { ATTEMPT_PHASES, CHANGE_KINDS, DELIVERY_STATES, NOTIFY_MODES } from '../store/watchlists.js';
import { WATCH_EVENT_TYPES } from '../watchlists/watch-event.js';

const lit = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<{
    -readonly [K in keyof T]: TLiteral<T[K]>;
  }>;

const names = Type.Array(Type.String({ minLength: 1, maxLength: MAX_USERNAME_LENGTH }), {
  minItems: 1,
  maxItems: 1000,
  description: 'Usernames to watch; each is one search per run (at most USERSCOUT_WATCHLIST_MAX_NAMES)',
});
const categories = Type.Array(lit(CATEGORIES), {
  maxItems: CATEGORIES.length,
  description: 'Only these categories (default: all)',
});
const platforms = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 2000,
  description: 'Only these platforms, by name or id (default: all)',
});
const INTERVAL = 'Seconds between runs; at least USERSCOUT_WATCHLIST_MIN_INTERVAL_MS (1 hour by default)';
const intervalSeconds = (description = INTERVAL) => Type.Integer({ minimum: 1, description });
const webhookUrl = Type.String({
  maxLength: 2000,
  description:
    'Where events are POSTed, signed (X-Userscout-Signature); private and loopback addresses are refused unless USERSCOUT_WEBHOOK_ALLOW_PRIVATE',
});
const webhookSecret = Type.String({
  minLength: 16,
  maxLength: 200,
  description: 'HMAC-SHA256 key of the signature; generated when not given',
});
const notify = (description?: string) => lit(NOTIFY_MODES, description ? { description } : {});

export const CreateWatchlistBody = Type.Object(
  {
    names,
    categories: Type.Optional(categories),
    platforms: Type.Optional(platforms),
    includeNsfw: Type.Optional(Type.Boolean()),
    intervalSeconds: Type.Optional(intervalSeconds(`${INTERVAL}; default: the minimum`)),
    webhookUrl: Type.Optional(webhookUrl),
    webhookSecret: Type.Optional(webhookSecret),
    notify: Type.Optional(notify('changes (default): only runs with changes; every_run: every finished run')),
    variants: Type.Optional(
      Type.Boolean({
        description:
          'Also watch lookalike names of each name (up to USERSCOUT_MAX_VARIANTS each, as POST /api/search variants makes them); each is one more search per run, counted',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateWatchlistBody = Type.Object(
  {
    names: Type.Optional(names),
    categories: Type.Optional(Type.Union([categories, Type.Null()])),
    platforms: Type.Optional(Type.Union([platforms, Type.Null()])),
    includeNsfw: Type.Optional(Type.Boolean()),
    intervalSeconds: Type.Optional(intervalSeconds()),
    webhookUrl: Type.Optional(Type.Union([webhookUrl, Type.Null()])),
    webhookSecret: Type.Optional(webhookSecret),
    rotateSecret: Type.Optional(Type.Boolean({ description: 'Generate a new secret (answered once)' })),
    notify: Type.Optional(notify()),
    variants: Type.Optional(
      Type.Boolean({
        description:
          'Also watch lookalike names of each name (up to USERSCOUT_MAX_VARIANTS each, as POST /api/search variants makes them); each is one more search per run, counted',
      }),
    ),
  },
  { additionalProperties: false },
);

const runSummary = Type.Object({
  id: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Optional(Type.String({ format: 'date-time' })),
  searches: Type.Record(Type.String(), Type.String(), {
    description: 'Name → search id (GET /api/search?id=)',
  }),
  skipped: Type.Record(Type.String(), Type.String(), { description: 'Name → why it was not searched' }),
  changes: Type.Optional(Type.Integer()),
});

export const WatchlistResponse = Type.Object(
  {
    id: Type.String(),
    names: Type.Array(Type.String()),
    categories: Type.Optional(Type.Array(Type.String())),
    platforms: Type.Optional(Type.Array(Type.String())),
    includeNsfw: Type.Optional(Type.Boolean()),
    intervalSeconds: Type.Integer(),
    webhookUrl: Type.Optional(Type.String()),
    webhookSecret: Type.Optional(
      Type.String({
        description: 'Only in the answer that created or rotated it: keep it, it is not shown again',
      }),
    ),
    notify: notify(),
    variants: Type.Optional(Type.Boolean()),
    watchedNames: Type.Optional(
      Type.Array(Type.String(), {
        description: 'With variants: every name a run searches, the lookalikes after the names',
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    nextRunAt: Type.String({ format: 'date-time' }),
    runs: Type.Integer({ description: 'Finished runs' }),
    running: Type.Optional(runSummary),
    lastRun: Type.Optional(runSummary),
  },
  { $id: 'Watchlist' },
);

export const WatchlistList = Type.Object({ watchlists: Type.Array(Type.Ref('Watchlist')) });

export const WatchlistParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});

// Query values are strings (the app does not coerce types): numbers are checked by pattern.
export const ChangesQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,12}$', description: 'Only changes with a seq above this' }),
    ),
    limit: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,4}$', description: 'At most this many, 1 to 1000 (default 100)' }),
    ),
  },
  { additionalProperties: false },
);

export const ChangesResponse = Type.Object({
  changes: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      runId: Type.String(),
      at: Type.String({ format: 'date-time' }),
      username: Type.String(),
      platform: Type.String(),
      platformId: Type.String(),
      url: Type.String(),
      kind: lit(CHANGE_KINDS, {
        description: 'new_hit: miss → hit; gone: hit → miss; changed: no answer → an answer',
      }),
      from: lit(OUTCOME_STATUSES),
      to: lit(OUTCOME_STATUSES),
    }),
  ),
});

const delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'The same on a redelivery: deduplicate by it' }),
  eventType: lit(WATCH_EVENT_TYPES),
  url: Type.String(),
  state: lit(DELIVERY_STATES),
  createdAt: Type.String({ format: 'date-time' }),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
  redeliveryOf: Type.Optional(Type.String()),
  attempts: Type.Array(
    Type.Object({
      at: Type.String({ format: 'date-time' }),
      phase: Type.Optional(
        lit(ATTEMPT_PHASES, {
          description:
            'in_flight: recorded before it was sent, not ended yet; interrupted: the service ended during it (the receiver may have it)',
        }),
      ),
      status: Type.Optional(Type.Integer({ description: "The receiver's HTTP status" })),
      error: Type.Optional(Type.String()),
      durationMs: Type.Integer(),
    }),
  ),
  event: Type.Unknown({ description: 'The event exactly as sent (the JSON body)' }),
});

export const DeliveriesResponse = Type.Object({ deliveries: Type.Array(delivery) });
export const DeliveryResponse = delivery;

export const RunResponse = Type.Object({
  status: Type.Union([Type.Literal('queued'), Type.Literal('running')], {
    description: 'queued: the run starts within moments; running: one is under way already',
  }),
});
