import type { Knex } from 'knex';

/**
 * The SQL text of every statement `knex` sends while `run` runs (its `query` events), in order —
 * to count a code path's statements or a background poller's queries.
 */
export async function statementsDuring(knex: Knex, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => void seen.push(q.sql);
  knex.on('query', listener);
  try {
    await run();
  } finally {
    knex.off('query', listener);
  }
  return seen;
}
