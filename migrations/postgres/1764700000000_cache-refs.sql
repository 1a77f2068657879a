-- The outcome cache refers to the searches' records (src/store/cache-refs.ts: a row names a
-- search and, per platform, when it was checked and until when it may be reused) instead of
-- copying each outcome. Entries written before are dropped, not converted: they are only a
-- cache, and the next search of that username checks those platforms again.

-- Up Migration
DROP TABLE outcome_cache;
CREATE TABLE outcome_cache (
  username text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL, -- of the row's last-expiring entry
  refs bytea NOT NULL -- cache-refs.ts
);
CREATE INDEX outcome_cache_by_username ON outcome_cache (username, expires_at);
CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);

-- Down Migration
DROP TABLE outcome_cache;
CREATE TABLE outcome_cache (
  username text COLLATE "C" NOT NULL,
  platform integer NOT NULL, -- vocabulary id of the platform id
  outcome bytea NOT NULL, -- compact-outcome.ts
  expires_at bigint NOT NULL,
  PRIMARY KEY (username, platform)
);
CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);
