-- userscout's PostgreSQL schema, version 3 (issue 19): a search asked with
-- recursive: true, and the follow-up searches it started once completed
-- (src/api/follow-ups.ts), recorded on it as JSON.

-- Up Migration
ALTER TABLE searches ADD COLUMN recursive boolean NOT NULL DEFAULT false;
ALTER TABLE searches ADD COLUMN follow_ups jsonb;

-- Down Migration
ALTER TABLE searches DROP COLUMN follow_ups;
ALTER TABLE searches DROP COLUMN recursive;
