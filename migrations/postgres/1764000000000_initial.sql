-- userscout's PostgreSQL schema, version 1 (node-pg-migrate SQL migration;
-- `userscout migrate` and every start-up apply what is missing). Append new
-- files; never edit one that has shipped.
--
-- Sizes (docs/deployment.md): a search is one row; its outcomes are a few
-- rows of `outcome_pages`, each one batch of outcomes as deflate-compressed
-- JSON, merged into one page when the search ends. No row per outcome: a
-- row's header and index entries alone (about 60 bytes) would cost more than
-- a compressed outcome.

-- Up Migration
CREATE TABLE searches (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  username text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'error')),
  tier text NOT NULL,
  client text NOT NULL,
  platform_ids bytea NOT NULL, -- brotli of the JSON array of platform ids (src/store/outcome-page.ts)
  estimated_seconds double precision NOT NULL,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  error text,
  outcome_count integer NOT NULL DEFAULT 0, -- the last seq given
  status_counts integer[] NOT NULL DEFAULT '{0,0,0,0,0}' -- hit, miss, unknown, error, invalid
);
CREATE INDEX searches_by_created_at ON searches (created_at);
CREATE INDEX searches_unfinished ON searches (created_at, id) WHERE state IN ('queued', 'running');

CREATE TABLE outcome_pages (
  search_key bigint NOT NULL REFERENCES searches (key) ON DELETE CASCADE,
  first_seq integer NOT NULL,
  count integer NOT NULL,
  platform_ids text, -- JSON array of the page's platform ids; NULL once merged (read the body)
  body bytea NOT NULL, -- deflate-raw of the JSON array of the page's outcomes, exactly as added
  PRIMARY KEY (search_key, first_seq)
);
-- Compressed already: TOAST need not try again.
ALTER TABLE searches ALTER COLUMN platform_ids SET STORAGE EXTERNAL;
ALTER TABLE outcome_pages ALTER COLUMN body SET STORAGE EXTERNAL;

CREATE TABLE outcome_cache (
  platform_id text COLLATE "C" NOT NULL,
  username text COLLATE "C" NOT NULL,
  outcome text NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (platform_id, username)
);
CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  tier text NOT NULL,
  hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  revoked_at bigint
);

CREATE TABLE platform_stats (
  platform_id text COLLATE "C" PRIMARY KEY,
  checks integer NOT NULL,
  hit_count integer NOT NULL,
  miss_count integer NOT NULL,
  unknown_count integer NOT NULL,
  error_count integer NOT NULL,
  invalid_count integer NOT NULL,
  answered integer NOT NULL, -- checks with status hit, miss or unknown
  answered_ms double precision NOT NULL, -- sum of their response times
  recent_ms double precision NOT NULL,
  last_checked_at bigint NOT NULL
);

-- Down Migration
DROP TABLE platform_stats;
DROP TABLE api_keys;
DROP TABLE outcome_cache;
DROP TABLE outcome_pages;
DROP TABLE searches;
