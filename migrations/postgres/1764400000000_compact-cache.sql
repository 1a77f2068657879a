-- Issue 16: the outcome cache in the one compact format (src/store/compact-outcome.ts, the
-- username taken out of addresses, a platform's repeated texts in `vocabulary`), keyed by the
-- platform's vocabulary id. Entries written before are dropped, not converted: they are only
-- a cache, and the next search of that username checks those platforms again.

-- Up Migration
DROP TABLE outcome_cache;
CREATE TABLE outcome_cache (
  username text COLLATE "C" NOT NULL,
  platform integer NOT NULL, -- vocabulary id of the platform id
  outcome bytea NOT NULL, -- compact-outcome.ts
  expires_at bigint NOT NULL,
  PRIMARY KEY (username, platform)
);
CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);

-- Down Migration
DROP TABLE outcome_cache;
CREATE TABLE outcome_cache (
  platform_id text COLLATE "C" NOT NULL,
  username text COLLATE "C" NOT NULL,
  outcome text NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (platform_id, username)
);
CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);
