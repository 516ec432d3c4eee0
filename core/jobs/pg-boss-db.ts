import type { Knex } from 'knex';

/** What pg-boss asks of a database: one statement with `$n` parameters, or several without. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number }>;
}

/**
 * pg-boss over embedded PGlite through the kernel's knex: takes PGlite's one connection from knex's
 * pool per statement (so it waits for, and never runs inside, another transaction). Several
 * statements without parameters (pg-boss's locked maintenance blocks) go to PGlite's `exec`.
 */
export function pgliteBossDb(knex: Knex): BossDb {
  return {
    async executeSql(text, values = []) {
      const conn = (await knex.client.acquireConnection()) as {
        query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number | null; affectedRows?: number }>;
        exec?(text: string): Promise<Array<{ rows: unknown[]; affectedRows?: number }>>;
      };
      try {
        if (values.length === 0) {
          const results = await conn.exec!(text);
          const last = results.at(-1);
          return { rows: last?.rows ?? [], rowCount: last?.affectedRows ?? 0 };
        }
        const res = await conn.query(text, values);
        return { rows: res.rows, rowCount: res.rowCount ?? res.affectedRows ?? res.rows.length };
      } finally {
        await knex.client.releaseConnection(conn);
      }
    },
  };
}

/**
 * pg-boss inside a caller's knex transaction (a job queued only if the transaction commits):
 * `$n` parameters become knex's `?` bindings in order of appearance.
 */
export function transactionBossDb(trx: Knex.Transaction): BossDb {
  return {
    async executeSql(text, values = []) {
      const bindings: unknown[] = [];
      const sql = text.replace(/\$(\d+)/g, (_m, n: string) => {
        // knex refuses undefined (pg sends it as NULL) and looks inside objects for it: a job's data
        // object goes as its JSON text, which pg-boss casts to jsonb anyway.
        const value = values[Number(n) - 1] ?? null;
        bindings.push(value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value);
        return '?';
      });
      const res = (await trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: unknown[]; rowCount?: number };
      return { rows: res.rows, rowCount: res.rowCount };
    },
  };
}
