-- The transport each site was found to need per egress identity (src/store/transport-memory.ts):
-- kept until expires_at, shared by every process of the cluster.

-- Up Migration
CREATE TABLE transport_memory (
  origin text COLLATE "C" NOT NULL,
  identity text COLLATE "C" NOT NULL,
  transport text NOT NULL,
  learned_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (origin, identity)
);

-- Down Migration
DROP TABLE transport_memory;
