-- userscout's PostgreSQL schema, version 2: what the Store interface gained
-- (issues 15, 17, 18): private searches and a client's own history, control
-- checks, leases and the scheduled self-check's verdicts, and watchlists with
-- their changes and webhook deliveries (src/store/postgres-watchlists.ts).
-- Records are JSONB where the application reads them whole.

-- Up Migration
ALTER TABLE searches ADD COLUMN private boolean NOT NULL DEFAULT false;
-- GET /api/searches: a client's searches, newest first, the id breaking ties.
CREATE INDEX searches_by_client ON searches (client, created_at DESC, id DESC);

CREATE TABLE platform_controls (
  platform_id text COLLATE "C" NOT NULL,
  identity text COLLATE "C" NOT NULL,
  record jsonb NOT NULL, -- ControlRecord
  PRIMARY KEY (platform_id, identity)
);

CREATE TABLE leases (
  name text COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL -- ms epoch, by the claimant's clock
);
CREATE INDEX leases_by_expires_at ON leases (expires_at);

CREATE TABLE platform_health (
  platform_id text COLLATE "C" PRIMARY KEY,
  entry jsonb NOT NULL -- PlatformHealthEntry
);

CREATE TABLE watchlists (
  id text COLLATE "C" PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  spec jsonb NOT NULL, -- WatchlistSpec
  state jsonb NOT NULL, -- WatchlistState
  version integer NOT NULL DEFAULT 0, -- fencing token of the latest claim
  due_at bigint NOT NULL,
  change_count integer NOT NULL DEFAULT 0 -- the last seq of its changes
);
CREATE INDEX watchlists_by_owner ON watchlists (owner, created_at, id);
CREATE INDEX watchlists_by_due_at ON watchlists (due_at, id);

CREATE TABLE watch_changes (
  watchlist_id text COLLATE "C" NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  change jsonb NOT NULL, -- WatchChange, seq included
  PRIMARY KEY (watchlist_id, seq)
);

CREATE TABLE webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  ord bigint GENERATED ALWAYS AS IDENTITY, -- order of insertion: ties of created_at
  watchlist_id text COLLATE "C" NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  delivery jsonb NOT NULL, -- DeliveryRecord
  version integer NOT NULL DEFAULT 0, -- fencing token of the latest claim
  due_at bigint -- NULL: nothing more to do
);
CREATE INDEX webhook_deliveries_by_watchlist ON webhook_deliveries (watchlist_id, created_at DESC, ord DESC);
CREATE INDEX webhook_deliveries_by_due_at ON webhook_deliveries (due_at, id) WHERE due_at IS NOT NULL;

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE watch_changes;
DROP TABLE watchlists;
DROP TABLE platform_health;
DROP TABLE leases;
DROP TABLE platform_controls;
DROP INDEX searches_by_client;
ALTER TABLE searches DROP COLUMN private;
