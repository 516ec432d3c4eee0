import type { Knex } from 'knex';

/**
 * Takes the next document number of `slug`'s organization for `year`, inside the submit
 * transaction: `{slug}-{yyyy}-{000001}`. The counter row is bumped with one upsert, so concurrent
 * submits queue on its row lock and each gets the next number; a submit that rolls back gives its
 * number back with the rest of its writes, so numbers have no gaps.
 * @see docs/api/approvals.md "Document numbers"
 */
export async function nextDocumentNumber(trx: Knex.Transaction, org: { id: string; slug: string }, year: number): Promise<string> {
  const { rows } = (await trx.raw(
    `insert into approvals.number_counters (org_id, year, last_number) values (?, ?, 1)
     on conflict (org_id, year) do update set last_number = approvals.number_counters.last_number + 1
     returning last_number`,
    [org.id, year],
  )) as { rows: Array<{ last_number: number }> };
  return `${org.slug}-${year}-${String(rows[0].last_number).padStart(6, '0')}`;
}
