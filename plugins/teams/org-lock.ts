import type { Knex } from 'knex';

/** First key of the teams plugin's advisory locks (an arbitrary constant: "TEAM" in ASCII). */
const LOCK_CLASS = 0x5445414d;

/**
 * Takes the organization's reporting-graph lock for the rest of `trx`: a transaction-scoped
 * PostgreSQL advisory lock keyed by the organization id. Every change to teams, leads and edges
 * takes it before reading the graph, so two concurrent inserts cannot each pass the cycle check and
 * together close a cycle. Two organizations whose ids hash alike only wait on each other.
 * @see docs/api/teams.md "Cycles"
 */
export async function lockOrgGraph(trx: Knex.Transaction, orgId: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, orgId]);
}
