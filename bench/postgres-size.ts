/**
 * Bytes a search takes in PostgreSQL (docs/deployment.md), measured: the
 * service with DATABASE_URL runs N searches of the built-in set against the
 * simulated web, into a database of this run's own (dropped after), and
 * pg_total_relation_size over every table (indexes and TOAST included) is
 * divided by N. Half the usernames have accounts on a seeded 40% of platforms
 * (bench/platform-set.ts), half have none, so most outcomes are misses.
 *
 *   npx tsx bench/postgres-size.ts [N] [postgres://postgres@127.0.0.1:5432/postgres]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/service.js';
import { SimWeb } from '../src/sim/server.js';
import { ACCOUNT_POOL, checkHosts, emulatePlatformSet, loadPlatformSet } from './platform-set.js';

const searches = Number(process.argv[2] ?? 10);
const adminUrl = process.argv[3] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SEED = 1;

async function admin(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

const database = `userscout_size_${process.pid}_${randomBytes(3).toString('hex')}`;
await admin(`CREATE DATABASE ${database}`);
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const set = loadPlatformSet('builtin', SEED);
const { routes } = emulatePlatformSet(set, 'zero', SEED);
const sim = new SimWeb({ routes });
const dir = mkdtempSync(join(tmpdir(), 'userscout-size-'));
try {
  await sim.start();
  await sim.prepareTls(checkHosts(set));
  const caFile = join(dir, 'sim-ca.pem');
  writeFileSync(caFile, sim.caCert);
  const config = loadConfig(
    {
      port: 0,
      dataDir: dir,
      databaseUrl: url.href,
      connectTo: sim.connectTo,
      caFile,
      refusePrivate: false,
      freeLimit: 1_000,
      // Every search checks every platform: no outcome comes from the cache.
      cacheHitSeconds: 0,
      cacheMissSeconds: 0,
      cacheOtherSeconds: 0,
    },
    {},
  );
  const service = await createService(config, { catalogue: set.catalogue });
  const base = await service.listen();
  // Plain VACUUM after each search, as autovacuum does on a busy database: the space of the
  // pages merged away is then reused by the next search instead of growing the files.
  const vacuum = new pg.Client({ connectionString: url.href });
  await vacuum.connect();
  const sizes = async () => {
    const { rows } = await vacuum.query<{ relname: string; bytes: string }>(
      `SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname IN ('searches', 'outcome_pages')`,
    );
    return rows.reduce((sum, r) => sum + Number(r.bytes), 0);
  };
  let outcomes = 0;
  // On disk at half way and at the end: the difference over the second half is what one
  // more search adds, without each table's fixed first pages.
  let halfway = 0;
  const byStatus: Record<string, number> = {};
  for (let i = 0; i < searches; i++) {
    const username = i % 2 === 0 ? ACCOUNT_POOL[i]! : `nobody-${i}-${randomBytes(3).toString('hex')}`;
    const started = await fetch(`${base}/api/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username }),
    }).then((r) => r.json() as Promise<{ queryId: string }>);
    for (;;) {
      const polled = (await fetch(`${base}/api/search?id=${started.queryId}`).then((r) => r.json())) as {
        status: string;
        progress: { checked: number; byStatus?: Record<string, number> };
      };
      if (polled.status !== 'running') {
        await vacuum.query('VACUUM outcome_pages, searches');
        if (i === Math.floor(searches / 2) - 1) halfway = await sizes();
        outcomes += polled.progress.checked;
        for (const [s, n] of Object.entries(polled.progress.byStatus ?? {}))
          byStatus[s] = (byStatus[s] ?? 0) + n;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  await service.close();
  const atEnd = await sizes();
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  const counts = await client.query<{ counts: number[] }>(
    'SELECT ARRAY[sum(status_counts[1]), sum(status_counts[2]), sum(status_counts[3]), sum(status_counts[4]), sum(status_counts[5])]::int[] AS counts FROM searches',
  );
  const [hit, miss, unknown, error, invalid] = counts.rows[0]!.counts;
  Object.assign(byStatus, { hit, miss, unknown, error, invalid });
  const live = await client.query<{ bytes: string }>(
    `SELECT (SELECT sum(pg_column_size(s.*)) FROM searches s) + (SELECT sum(pg_column_size(p.*)) FROM outcome_pages p) AS bytes`,
  );
  const parts = await client.query<{ platform_ids: string; page_body: string }>(
    `SELECT (SELECT avg(pg_column_size(platform_ids)) FROM searches) AS platform_ids,
            (SELECT avg(pg_column_size(body)) FROM outcome_pages) AS page_body`,
  );
  await client.query('VACUUM ANALYZE');
  // On disk, as a busy database keeps it: what merged pages freed is reused by the next searches.
  await client.query('VACUUM FULL');
  const compacted = await sizes();
  await client.end();
  await vacuum.end();
  const per = (bytes: number) => Math.round(bytes / searches);
  console.log(
    JSON.stringify(
      {
        searches,
        outcomes,
        byStatus,
        bytesPerSearch: {
          platformIds: Math.round(Number(parts.rows[0]!.platform_ids)),
          outcomePage: Math.round(Number(parts.rows[0]!.page_body)),
          rows: per(Number(live.rows[0]!.bytes)),
          onDisk: per(atEnd),
          onDiskEachMore: Math.round((atEnd - halfway) / (searches - Math.floor(searches / 2))),
          compacted: per(compacted),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
}
