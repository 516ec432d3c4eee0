import type { Knex } from 'knex';

/**
 * The schedule `files.lifecycle-due` looks every 10 minutes for the organizations whose rules are due
 * (`org_storage.lifecycle_next_run_at` passed): a partial index on the organizations that have one.
 * See docs/api/files.md "Lifecycle rules".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index org_storage_lifecycle_due_idx on files.org_storage (lifecycle_next_run_at) where lifecycle_next_run_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index files.org_storage_lifecycle_due_idx');
}
