/**
 * A kind's site facts on SQLite, on the SQLite store's connection (sql-site-facts.ts says
 * what both SQL backends do). The table is created here (IF NOT EXISTS) from the kind's
 * fields, apart from the search store's migrations.
 */
import type { SiteFact } from '../schedule/site-facts.js';
import type { SiteFactKind, SiteFactTable } from './site-fact-table.js';
import { columnsOf, type FactColumn, factsOfRows, rowOf, siteFactStatements } from './sql-site-facts.js';
import type { Database, Statement } from './sqlite-driver.js';

/** SQLite has no boolean: one is kept as 0 or 1. */
const DECLARED = { text: 'TEXT', integer: 'INTEGER', real: 'REAL', boolean: 'INTEGER' } as const;

function schemaOf(kind: SiteFactKind<SiteFact>): string {
  const columns = columnsOf(kind).map(
    ({ column, type, optional }) => `${column} ${DECLARED[type]}${optional ? '' : ' NOT NULL'}`,
  );
  return `CREATE TABLE IF NOT EXISTS ${kind.table} (
    origin TEXT NOT NULL,
    identity TEXT NOT NULL,
    ${columns.join(',\n    ')},
    PRIMARY KEY (origin, identity)
  ) WITHOUT ROWID`;
}

const written = (value: unknown, { type }: FactColumn): unknown =>
  type === 'boolean' ? (value ? 1 : 0) : value;
const read = (value: unknown, { type }: FactColumn): unknown => (type === 'boolean' ? value === 1 : value);

export class SqliteSiteFacts<E extends SiteFact> implements SiteFactTable<E> {
  readonly #kind: SiteFactKind<E>;
  readonly #sweep: Statement;
  readonly #list: Statement;
  readonly #put: Statement;

  constructor(db: Database, kind: SiteFactKind<E>) {
    this.#kind = kind;
    db.exec(schemaOf(kind));
    const sql = siteFactStatements(kind, () => '?');
    this.#sweep = db.prepare(sql.sweep);
    this.#list = db.prepare(sql.list);
    this.#put = db.prepare(sql.put);
  }

  async read(now: number): Promise<readonly E[]> {
    this.#sweep.run(now);
    return factsOfRows(this.#kind, this.#list.all(now) as Record<string, unknown>[], read);
  }

  async keep(entry: E): Promise<void> {
    this.#put.run(...rowOf(this.#kind, entry, written));
  }
}
