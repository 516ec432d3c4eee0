import type { Knex } from 'knex';

/** What pg-boss asks of a database: one statement with `$n` parameters, or several without. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number }>;
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
