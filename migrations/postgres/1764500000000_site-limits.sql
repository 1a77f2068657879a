-- Sites' rate limits as learned per egress identity (src/store/site-limits.ts): kept
-- until expires_at, shared by every process of the cluster.

-- Up Migration
CREATE TABLE site_limits (
  origin text COLLATE "C" NOT NULL,
  identity text COLLATE "C" NOT NULL,
  per_second double precision NOT NULL,
  stated boolean NOT NULL,
  learned_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  quiet_until bigint, -- nothing sent before then: the site asked us to wait
  PRIMARY KEY (origin, identity)
);

-- Down Migration
DROP TABLE site_limits;
