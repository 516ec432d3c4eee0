import knexFactory, { type Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { knexSnakeCaseMappers } from 'objection';

// Return bigint/numeric counts as numbers and timestamps as Date, the same on both drivers.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * The kernel's database handle (`core.db`). Columns are snake_case in PostgreSQL and camelCase in
 * code: knex maps identifiers and result keys both ways (objection's `knexSnakeCaseMappers`).
 */
export interface Database {
  /** knex on the PostgreSQL database (embedded PGlite or a server). */
  knex: Knex;
  kind: 'pglite' | 'pg';
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  /**
   * SQL straight through the driver (`$1` placeholders, no identifier mapping), for libraries that
   * speak the `pg` client protocol (`{ text, values }` → `{ rows, rowCount }`): one statement with
   * parameters, or several without (the last one's result is answered).
   * Takes a connection from knex's pool: never call it inside a transaction (on embedded PGlite,
   * whose pool has one connection, it would wait for itself).
   */
  driverQuery(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number }>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`: use a PostgreSQL server through `pg`. */
  url?: string;
  /** Folder for embedded PGlite data; `null` keeps it in memory. */
  dataDir?: string | null;
  /** A ready PGlite instance (tests load one from a dump). */
  pglite?: PGlite;
}

/**
 * Opens the database: a PostgreSQL server when `url` is set, otherwise embedded PGlite persisted
 * under `dataDir` (or in memory).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  let knex: Knex;
  let kind: Database['kind'];
  if (options.url) {
    kind = 'pg';
    knex = knexFactory({ client: 'pg', connection: options.url, pool: { min: 0, max: 10 }, ...knexSnakeCaseMappers() });
  } else {
    kind = 'pglite';
    // Loaded only for the embedded database: a process on a PostgreSQL server saves PGlite's ~40 MiB.
    const [{ default: ClientPgLite }, { PGlite }, { PGLITE_EXTENSIONS }] = await Promise.all([
      import('knex-pglite'), import('@electric-sql/pglite'), import('./pglite-extensions.ts'),
    ]);
    let instance = options.pglite;
    if (!instance) {
      if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
      instance = new PGlite({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), extensions: PGLITE_EXTENSIONS });
    }
    const pglite = instance;
    knex = knexFactory({ client: ClientPgLite as unknown as typeof Knex.Client, dialect: 'postgres', connection: () => ({ pglite }) as object, ...knexSnakeCaseMappers() });
  }
  // Through knex's pool, so a statement waits for a transaction holding PGlite's one connection
  // instead of running inside it. Never call it inside a transaction of the same database.
  const driverQuery: Database['driverQuery'] = async (text, values = []) => {
    type QueryResult = { rows: Array<Record<string, unknown>>; rowCount?: number | null; affectedRows?: number };
    const conn = (await knex.client.acquireConnection()) as {
      query(text: string, values: unknown[]): Promise<QueryResult | QueryResult[]>;
      exec?(text: string): Promise<Array<{ rows: Array<Record<string, unknown>>; affectedRows?: number }>>;
    };
    try {
      // Without parameters the text may hold several statements: PGlite runs those with `exec`
      // (its `query` takes one); the `pg` client runs them as one simple query.
      if (values.length === 0 && kind === 'pglite') {
        const last = (await conn.exec!(text)).at(-1);
        return { rows: last?.rows ?? [], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
      }
      // The `pg` client answers a simple query of several statements with one result per statement.
      const answer = (await conn.query(text, values)) as QueryResult | QueryResult[];
      const res = Array.isArray(answer) ? answer.at(-1) ?? { rows: [] } : answer;
      return { rows: res.rows, rowCount: res.rowCount ?? res.affectedRows ?? res.rows.length };
    } finally {
      await knex.client.releaseConnection(conn);
    }
  };
  const db: Database = {
    knex,
    kind,
    transaction: (fn) => knex.transaction(fn),
    ping: async () => {
      await knex.raw('select 1');
    },
    driverQuery,
    close: () => knex.destroy(),
  };
  await db.ping();
  return db;
}
